import { afterAll, beforeAll, expect, test } from "vitest";
import { DEMO_ADS, seedDemoAds } from "../../lib/ads/seed";
import { describeResponse, type Ads } from "../helpers/harness";
import { createAdsWorld, TARGET_CONFIG, type AdsWorld } from "./support/ads-world";

/**
 * The "done when", as the README walks it with the Demo customer: a custom audience from contacts,
 * contacts added and removed, a lookalike watched until ready (the simulator's clock moves on), a city and
 * an interest looked up and used in an ad set.
 */
let world: AdsWorld;
beforeAll(async () => {
  world = await createAdsWorld();
});
afterAll(async () => world.close());

test("portal flow: audiences and targeting lookups end to end", async () => {
  const { h, sim } = world;
  const c = await h.customer("Demo audiences");
  await seedDemoAds(h.adsDeps, h.deps.providers.graphSimulator, c.id);
  const call = <T>(method: string, path: string, body?: unknown) => h.call<T>(method, `/ads/v1${path}`, { key: c.adsFull, body });

  const contacts = Array.from({ length: 150 }, (_, i) => ({
    email: `kunde${i}@example.de`,
    first_name: "Kundin",
    country: "DE",
    phone: `0171 ${String(1_000_000 + i)}`,
  }));
  const custom = await call<Ads["createCustomAudience"]>("POST", "/audiences/custom", {
    name: "Newsletter subscribers",
    description: "Double opt-in",
    contacts,
  });
  expect(custom.status, describeResponse(custom)).toBe(201);
  expect(custom.json.data).toMatchObject({ type: "CUSTOM", status: "READY", approximate_size: 150, upload: { received: 150, sent: 150, invalid: 0 } });
  const audienceId = custom.json.data.id;

  const added = await call<Ads["addAudienceContacts"]>("POST", `/audiences/${audienceId}/contacts`, {
    contacts: [{ email: "neu@example.de" }, { phone: "+43 664 1234567" }, { first_name: "Nur ein Name" }],
  });
  expect(added.json.data, describeResponse(added)).toMatchObject({
    received: 3,
    sent: 2,
    invalid: 1,
    invalid_contacts: [{ index: 2, fields: ["email", "phone"] }],
  });
  const removed = await call<Ads["removeAudienceContacts"]>("DELETE", `/audiences/${audienceId}/contacts`, { contacts: [{ email: "neu@example.de" }] });
  expect(removed.json.data, describeResponse(removed)).toMatchObject({ operation: "remove", sent: 1 });
  expect((await call<Ads["getAudience"]>("GET", `/audiences/${audienceId}`)).json.data).toMatchObject({
    approximate_size: 151,
    contacts: { sent: 152, removed: 1, invalid: 1 },
  });

  h.clock.advance(1_000);
  const lookalike = await call<Ads["createLookalikeAudience"]>("POST", "/audiences/lookalike", {
    name: "Subscribers lookalike CH",
    origin_audience_id: audienceId,
    country: "CH",
    ratio: 0.01,
  });
  expect(lookalike.json.data, describeResponse(lookalike)).toMatchObject({ status: "POPULATING", approximate_size: null });
  sim.advance(30 * 60_000);
  h.clock.advance(60_000);
  const ready = await call<Ads["getAudience"]>("GET", `/audiences/${lookalike.json.data.id}`);
  expect(ready.json.data, describeResponse(ready)).toMatchObject({ status: "READY", approximate_size: 49_000 });
  const listed = await call<Ads["listAudiences"]>("GET", "/audiences");
  expect(listed.json.data.map((a) => [a.name, a.status])).toEqual([
    ["Subscribers lookalike CH", "READY"],
    ["Newsletter subscribers", "READY"],
  ]);

  const city = (await call<Ads["searchTargetingGeo"]>("GET", "/targeting/geo?q=m%C3%BCnchen&country_code=DE&limit=1")).json.data[0];
  expect(city).toEqual({ key: "2867714", name: "München", type: "city", country_code: "DE", region: "Bavaria" });
  const interest = (await call<Ads["searchTargetingInterests"]>("GET", "/targeting/interests?q=yoga&limit=1")).json.data[0];
  expect(interest).toMatchObject({ name: "Yoga", id: expect.stringMatching(/^\d+$/) });
  // The operator puts the city into a target; the customer's ad set takes the interest.
  const target = await h.admin("POST", `/v1/customers/${c.id}/ads/targets`, {
    key: "munich",
    platform_campaign_id: DEMO_ADS.campaignId,
    status: "ACTIVE",
    config: { ...TARGET_CONFIG, geo_locations: { cities: [{ key: city.key, radius: 15, distance_unit: "kilometer" }] } },
  });
  expect(target.status, describeResponse(target)).toBe(201);
  const adSet = await call<Ads["createAdSet"]>("POST", "/adsets", {
    target: "munich",
    daily_budget_cents: 1500,
    targeting: { age_min: 25, flexible_spec: [{ interests: [{ id: interest.id, name: interest.name }] }] },
  });
  expect(adSet.status, describeResponse(adSet)).toBe(201);
  expect(sim.state.adsets.get(adSet.json.data.platform_adset_id)?.targeting).toMatchObject({
    geo_locations: { cities: [{ key: "2867714", radius: 15, distance_unit: "kilometer" }] },
    flexible_spec: [{ interests: [{ id: interest.id, name: "Yoga" }] }],
  });

  const deleted = await call<Ads["deleteAudience"]>("DELETE", `/audiences/${audienceId}`);
  expect(deleted.json.data, describeResponse(deleted)).toEqual({ id: audienceId, deleted: true });
  expect((await call<Ads["getAudience"]>("GET", `/audiences/${lookalike.json.data.id}`)).json.data).toMatchObject({ origin_audience_id: null });
});
