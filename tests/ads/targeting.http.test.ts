import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { describeResponse, type Ads, type ErrorEnvelope, type MissingDetails } from "../helpers/harness";
import { createAdsWorld, onboardedCustomer, TARGET_CONFIG, type AdsWorld, type OnboardedCustomer } from "./support/ads-world";

let world: AdsWorld;
let c: OnboardedCustomer;
beforeAll(async () => {
  world = await createAdsWorld();
  c = await onboardedCustomer(world, "Targeting");
});
afterAll(async () => world.close());

const get = <T>(path: string, key = c.adsReporting) => world.h.call<T>("GET", `/ads/v1${path}`, { key });
const searches = () => world.sim.requests().filter((r) => r.path.endsWith("/search"));

describe("GET /v1/targeting/geo", () => {
  test("DACH cities by prefix, accents ignored, with the platform's keys", async () => {
    const r = await get<Ads["searchTargetingGeo"]>("/targeting/geo?q=munch&limit=3");
    expect(r.status, describeResponse(r)).toBe(200);
    expect(r.json.data[0]).toEqual({ key: "2867714", name: "München", type: "city", country_code: "DE", region: "Bavaria" });
    expect(r.json.data.length).toBeLessThanOrEqual(3);
    const zurich = await get<Ads["searchTargetingGeo"]>("/targeting/geo?q=Z%C3%BCr&country_code=CH");
    expect(zurich.json.data[0]).toMatchObject({ name: "Zürich", country_code: "CH" });
    expect(zurich.json.data.every((city: { country_code: string }) => city.country_code === "CH")).toBe(true);
    const wien = await get<Ads["searchTargetingGeo"]>("/targeting/geo?q=wien");
    expect(wien.json.data[0]).toMatchObject({ name: "Wien", country_code: "AT" });
    const sent = searches().find((s) => s.query.q === "Z\u00fcr");
    expect(sent?.query).toMatchObject({ type: "adgeolocation", location_types: '["city"]', country_code: "CH" });
  });

  test("answers are cached per query, then asked again after an hour", async () => {
    world.sim.clearRequests();
    const first = await get<Ads["searchTargetingGeo"]>("/targeting/geo?q=Hamburg");
    const second = await get<Ads["searchTargetingGeo"]>("/targeting/geo?q=hamburg");
    expect(second.json.data).toEqual(first.json.data);
    expect(searches()).toHaveLength(1);
    // Another customer hits the same cache: the catalogue is the platform's, the same for everyone.
    const own = await onboardedCustomer(world, "Targeting two");
    expect((await get<Ads["searchTargetingGeo"]>("/targeting/geo?q=Hamburg", own.adsReporting)).json.data).toEqual(first.json.data);
    expect(searches()).toHaveLength(1);
    world.h.clock.advance(60 * 60_000 + 1);
    await get("/targeting/geo?q=Hamburg");
    expect(searches()).toHaveLength(2);
  });

  test.each([
    ["no q", "/targeting/geo", 400],
    ["an empty q", "/targeting/geo?q=", 422],
    ["a country outside DACH", "/targeting/geo?q=Paris&country_code=FR", 422],
    ["limit 0", "/targeting/geo?q=a&limit=0", 422],
    ["limit above 50", "/targeting/geo?q=a&limit=51", 422],
    ["interests without q", "/targeting/interests", 400],
    ["interests with limit above 50", "/targeting/interests?q=a&limit=51", 422],
  ])("%s → %i", async (_label, path, status) => {
    const r = await get(path);
    expect(r.status, describeResponse(r)).toBe(status);
  });

  test("no onboarding → 422 missing, even for a cached query", async () => {
    await get("/targeting/geo?q=Berlin");
    const fresh = await world.h.customer("No onboarding");
    const r = await get<ErrorEnvelope<MissingDetails>>("/targeting/geo?q=Berlin", fresh.adsReporting);
    expect(r.status, describeResponse(r)).toBe(422);
    expect(r.json.error.details.missing).toEqual(expect.arrayContaining(["access_token"]));
  });
});

describe("GET /v1/targeting/interests and their use", () => {
  test("an interest and a city found here make an ad set", async () => {
    const interests = await get<Ads["searchTargetingInterests"]>("/targeting/interests?q=running&limit=5");
    expect(interests.status, describeResponse(interests)).toBe(200);
    const running = interests.json.data.find((item: { name: string }) => item.name === "Running");
    expect(running).toEqual({
      id: "6003139266461",
      name: "Running",
      audience_size: expect.any(Number),
      audience_size_upper_bound: expect.any(Number),
      path: ["Sports and outdoors", "Sports"],
    });
    if (!running) throw new Error("no Running interest");

    const city = (await get<Ads["searchTargetingGeo"]>("/targeting/geo?q=Graz&country_code=AT")).json.data[0];
    expect(city).toMatchObject({ name: "Graz", country_code: "AT" });
    const target = await world.h.admin("POST", `/v1/customers/${c.id}/ads/targets`, {
      key: "graz",
      platform_campaign_id: c.campaignId,
      status: "ACTIVE",
      config: { ...TARGET_CONFIG, geo_locations: { cities: [{ key: city.key, radius: 25, distance_unit: "kilometer" }] } },
    });
    expect(target.status, describeResponse(target)).toBe(201);

    const adSet = await world.h.call<Ads["createAdSet"]>("POST", "/ads/v1/adsets", {
      key: c.adsFull,
      body: { target: "graz", daily_budget_cents: 2000, targeting: { flexible_spec: [{ interests: [{ id: running.id, name: running.name }] }] } },
    });
    expect(adSet.status, describeResponse(adSet)).toBe(201);
    const upstream = world.sim.state.adsets.get(adSet.json.data.platform_adset_id);
    expect(upstream?.targeting.geo_locations?.cities).toEqual([{ key: city.key, radius: 25, distance_unit: "kilometer" }]);
    expect(upstream?.targeting.flexible_spec).toEqual([{ interests: [{ id: "6003139266461", name: "Running" }] }]);
  });
});
