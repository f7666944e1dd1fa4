import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { describeResponse, type Ads, type ErrorEnvelope, type StateDetails, type FieldIssue } from "../helpers/harness";
import { createAdSet, createAdsWorld, createAd, onboardedCustomer, type AdsWorld, type OnboardedCustomer } from "./support/ads-world";

let world: AdsWorld;
let c: OnboardedCustomer;
beforeAll(async () => {
  world = await createAdsWorld();
  c = await onboardedCustomer(world, "Ad sets");
});
afterAll(async () => world.close());

const post = <T = Ads["createAdSet"]>(body: unknown, key = c.adsFull) => world.h.call<T>("POST", "/ads/v1/adsets", { key, body });
const future = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();
const lastCreate = () =>
  world.sim
    .requests()
    .filter((r) => r.method === "POST" && r.path.endsWith("/adsets"))
    .pop();

describe("POST /v1/adsets", () => {
  test("creates under the target's campaign with the locked fields from the target and the onboarding", async () => {
    world.sim.clearRequests();
    const r = await post({
      target: "main",
      daily_budget_cents: 2500,
      targeting: { age_min: 21, age_max: 65, genders: [1, 2], flexible_spec: [{ interests: [{ id: "6003139266461", name: "Running" }] }] },
    });
    expect(r.status, describeResponse(r)).toBe(201);
    expect(r.json.data).toMatchObject({
      id: expect.any(String),
      target: "main",
      name: expect.stringMatching(/^main-\d{8}-\d{3}$/),
      daily_budget_cents: 2500,
      lifetime_budget_cents: null,
      status: "ACTIVE",
      effective_status: "ACTIVE",
      platform_adset_id: expect.stringMatching(/^\d+$/),
    });
    const sent = lastCreate()?.form ?? {};
    expect(sent).toMatchObject({
      name: r.json.data.name,
      campaign_id: c.campaignId,
      daily_budget: "2500",
      billing_event: "IMPRESSIONS",
      optimization_goal: "LINK_CLICKS",
      status: "ACTIVE",
      dsa_beneficiary: "Ad sets GmbH",
      dsa_payor: "Ad sets GmbH",
    });
    expect(JSON.parse(sent.targeting ?? "{}")).toEqual({
      geo_locations: { countries: ["DE", "AT"] },
      age_min: 21,
      age_max: 65,
      genders: [1, 2],
      flexible_spec: [{ interests: [{ id: "6003139266461", name: "Running" }] }],
      publisher_platforms: ["facebook", "instagram"],
      device_platforms: ["mobile", "desktop"],
      targeting_automation: { advantage_audience: 0 },
    });
    expect(world.sim.state.adsets.get(r.json.data.platform_adset_id)?.campaignId).toBe(c.campaignId);
  });

  test("names follow the convention with a sequence, and the operator's pattern once set", async () => {
    const own = await onboardedCustomer(world, "Naming seq");
    const first = await post({ target: "main", daily_budget_cents: 1000 }, own.adsFull);
    const second = await post({ target: "main", daily_budget_cents: 1000 }, own.adsFull);
    const day = new Date(world.h.clock.now()).toISOString().slice(0, 10).replace(/-/g, "");
    expect([first.json.data.name, second.json.data.name]).toEqual([`main-${day}-001`, `main-${day}-002`]);
    await world.h.admin("PATCH", `/v1/customers/${own.id}/ads/naming`, { adset_pattern: "acme/{target}/{seq}" });
    const third = await post({ target: "main", daily_budget_cents: 1000 }, own.adsFull);
    expect(third.json.data.name, describeResponse(third)).toBe("acme/main/001");
  });

  test("a lifetime budget with an end time", async () => {
    const r = await post({ target: "main", lifetime_budget_cents: 50_000, start_time: future(1), end_time: future(30) });
    expect(r.status, describeResponse(r)).toBe(201);
    expect(r.json.data).toMatchObject({ lifetime_budget_cents: 50_000, daily_budget_cents: null, end_time: expect.any(String) });
  });

  test.each([
    ["no budget", { target: "main" }, ["daily_budget_cents", "lifetime_budget_cents"]],
    [
      "both budgets",
      { target: "main", daily_budget_cents: 1000, lifetime_budget_cents: 9000, end_time: future(9) },
      ["daily_budget_cents", "lifetime_budget_cents"],
    ],
    ["a lifetime budget without end_time", { target: "main", lifetime_budget_cents: 9000 }, ["end_time"]],
    ["an end before the start", { target: "main", daily_budget_cents: 1000, start_time: future(5), end_time: future(2) }, ["end_time"]],
    ["age_min below 13", { target: "main", daily_budget_cents: 1000, targeting: { age_min: 12 } }, ["targeting.age_min"]],
    ["age_max above 65", { target: "main", daily_budget_cents: 1000, targeting: { age_max: 66 } }, ["targeting.age_max"]],
    ["age_min above age_max", { target: "main", daily_budget_cents: 1000, targeting: { age_min: 40, age_max: 30 } }, ["targeting.age_min"]],
    ["an unknown gender", { target: "main", daily_budget_cents: 1000, targeting: { genders: [3] } }, ["targeting.genders.0"]],
    ["an empty flexible_spec group", { target: "main", daily_budget_cents: 1000, targeting: { flexible_spec: [{}] } }, ["targeting.flexible_spec.0"]],
    [
      "a non-numeric interest id",
      { target: "main", daily_budget_cents: 1000, targeting: { flexible_spec: [{ interests: [{ id: "running", name: "Running" }] }] } },
      ["targeting.flexible_spec.0.interests.0.id"],
    ],
    ["a negative budget", { target: "main", daily_budget_cents: -5 }, ["daily_budget_cents"]],
    ["a time without offset", { target: "main", daily_budget_cents: 1000, start_time: "2030-01-01 10:00" }, ["start_time"]],
    ["an unknown target", { target: "nope", daily_budget_cents: 1000 }, ["target"]],
    ["an unknown field", { target: "main", daily_budget_cents: 1000, colour: "red" }, ["json"]],
  ])("422 for %s", async (_label, body, fields) => {
    const r = await post<ErrorEnvelope<FieldIssue[]>>(body);
    expect(r.status, describeResponse(r)).toBe(422);
    expect(r.json.error.code).toBe("validation_error");
    expect(r.json.error.details.map((d: { field: string }) => d.field)).toEqual(fields);
  });

  test("locked fields are 422 with details.locked_fields naming every one sent", async () => {
    world.sim.clearRequests();
    const r = await post<ErrorEnvelope>({
      target: "main",
      daily_budget_cents: 1000,
      name: "mine",
      optimization_goal: "REACH",
      bid_strategy: "COST_CAP",
      targeting: { age_min: 20, geo_locations: { countries: ["FR"] }, publisher_platforms: ["facebook"], device_platforms: ["mobile"] },
    });
    expect(r.status, describeResponse(r)).toBe(422);
    expect(r.json.error.details).toEqual({
      locked_fields: ["name", "optimization_goal", "bid_strategy", "targeting.geo_locations", "targeting.publisher_platforms", "targeting.device_platforms"],
    });
    for (const field of ["status", "billing_event", "promoted_object", "targeting.facebook_positions", "targeting.instagram_positions"]) {
      const [head, tail] = field.split(".");
      const body = tail
        ? { target: "main", daily_budget_cents: 1000, targeting: { [tail]: ["x"] } }
        : { target: "main", daily_budget_cents: 1000, [head as string]: "x" };
      const one = await post<ErrorEnvelope>(body);
      expect(one.json.error?.details, describeResponse(one)).toEqual({ locked_fields: [field] });
    }
    expect(lastCreate()).toBeUndefined();
  });

  test("400 without a target", async () => {
    const r = await post<ErrorEnvelope>({ daily_budget_cents: 1000 });
    expect(r.status, describeResponse(r)).toBe(400);
    expect(r.json.error.code).toBe("bad_request");
  });

  test("a paused target is 409", async () => {
    const r = await post<ErrorEnvelope>({ target: "paused", daily_budget_cents: 1000 });
    expect(r.status, describeResponse(r)).toBe(409);
    expect(r.json.error.details).toMatchObject({ reason: "target_inactive", target: "paused" });
  });

  test("incomplete onboarding is 422 with details.missing", async () => {
    const bare = await world.h.customer("Ad sets bare");
    await world.h.admin("PATCH", `/v1/customers/${bare.id}/ads/account`, { page_id: "1234", legal_name: "Bare GmbH" });
    const r = await post<ErrorEnvelope>({ target: "main", daily_budget_cents: 1000 }, bare.adsFull);
    expect(r.status, describeResponse(r)).toBe(422);
    expect(r.json.error.details).toEqual({ missing: ["access_token", "app_secret", "ad_account_id", "instagram_account_id", "dsa_beneficiary", "dsa_payor"] });
  });

  test("the platform's own refusal comes back as 422 on our field name", async () => {
    const r = await post<ErrorEnvelope>({ target: "main", daily_budget_cents: 50 });
    expect(r.status, describeResponse(r)).toBe(422);
    expect(r.json.error.details).toEqual([{ field: "daily_budget_cents", issue: expect.stringContaining("minimum daily budget") }]);
  });

  test("an Idempotency-Key replays the first answer and creates one ad set upstream", async () => {
    world.sim.clearRequests();
    const headers = { "idempotency-key": crypto.randomUUID() };
    const first = await world.h.call<Ads["createAdSet"]>("POST", "/ads/v1/adsets", {
      key: c.adsFull,
      headers,
      body: { target: "main", daily_budget_cents: 1200 },
    });
    const second = await world.h.call<Ads["createAdSet"]>("POST", "/ads/v1/adsets", {
      key: c.adsFull,
      headers,
      body: { target: "main", daily_budget_cents: 1200 },
    });
    expect(second.status, describeResponse(second)).toBe(201);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(second.json.data.id).toBe(first.json.data.id);
    expect(world.sim.requests().filter((r) => r.method === "POST" && r.path.endsWith("/adsets"))).toHaveLength(1);
  });

  test("401 without a key, 403 with a reporting key, 402 when the account is overdue (reads stay)", async () => {
    expect((await world.h.call("POST", "/ads/v1/adsets", { body: { target: "main", daily_budget_cents: 1000 } })).status).toBe(401);
    expect((await post({ target: "main", daily_budget_cents: 1000 }, c.adsReporting)).status).toBe(403);
    const overdue = await onboardedCustomer(world, "Ad sets overdue");
    await world.h.admin("PATCH", `/v1/customers/${overdue.id}`, { ads: { account_state: "overdue" } });
    const blocked = await post<ErrorEnvelope>({ target: "main", daily_budget_cents: 1000 }, overdue.adsFull);
    expect(blocked.status, describeResponse(blocked)).toBe(402);
    expect(blocked.json.error.code).toBe("payment_required");
    expect((await world.h.call("GET", "/ads/v1/adsets", { key: overdue.adsFull })).status).toBe(200);
  });
});

describe("GET /v1/adsets", () => {
  test("filters by target and status, pages with limit and offset, and shows only the caller's ad sets", async () => {
    const own = await onboardedCustomer(world, "Ad sets list");
    const made = [];
    for (let i = 0; i < 3; i++) {
      // The harness clock stands still; newest-first needs distinct creation times.
      world.h.clock.advance(1000);
      made.push(await createAdSet(world, own));
    }
    await world.h.call("PATCH", `/ads/v1/adsets/${made[0]?.id}`, { key: own.adsFull, body: { status: "PAUSED" } });
    await createAdSet(world, c);

    const all = await world.h.call<Ads["listAdSets"]>("GET", "/ads/v1/adsets", { key: own.adsReporting });
    expect(
      all.json.data.map((a: { id: string }) => a.id),
      describeResponse(all),
    ).toEqual(made.map((a) => a.id).reverse());
    const paused = await world.h.call<Ads["listAdSets"]>("GET", "/ads/v1/adsets?status=PAUSED&target=main", { key: own.adsReporting });
    expect(paused.json.data.map((a: { id: string }) => a.id)).toEqual([made[0]?.id]);
    const page = await world.h.call<Ads["listAdSets"]>("GET", "/ads/v1/adsets?limit=1&offset=1", { key: own.adsReporting });
    expect(page.json.data.map((a: { id: string }) => a.id)).toEqual([made[1]?.id]);
    const otherTarget = await world.h.call<Ads["listAdSets"]>("GET", "/ads/v1/adsets?target=paused", { key: own.adsReporting });
    expect(otherTarget.json.data).toEqual([]);
  });

  test.each(["limit=0", "limit=101", "offset=-1", "status=DELETED"])("422 for %s", async (query) => {
    const r = await world.h.call("GET", `/ads/v1/adsets?${query}`, { key: c.adsFull });
    expect(r.status, describeResponse(r)).toBe(422);
  });
});

describe("PATCH /v1/adsets/{id}", () => {
  test("changes budget, end time and status here and upstream", async () => {
    const adSet = await createAdSet(world, c);
    const r = await world.h.call<Ads["updateAdSet"]>("PATCH", `/ads/v1/adsets/${adSet.id}`, {
      key: c.adsFull,
      body: { daily_budget_cents: 4000, end_time: future(20), status: "PAUSED" },
    });
    expect(r.status, describeResponse(r)).toBe(200);
    expect(r.json.data).toMatchObject({
      id: adSet.id,
      daily_budget_cents: 4000,
      status: "PAUSED",
      effective_status: "PAUSED",
      platform_adset_id: adSet.platform_adset_id,
    });
    const upstream = world.sim.state.adsets.get(adSet.platform_adset_id);
    expect([upstream?.dailyBudget, upstream?.status]).toEqual([4000, "PAUSED"]);
    const empty = await world.h.call<Ads["updateAdSet"]>("PATCH", `/ads/v1/adsets/${adSet.id}`, { key: c.adsFull, body: {} });
    expect(empty.json.data.daily_budget_cents, describeResponse(empty)).toBe(4000);
  });

  test("locked fields, the other budget type, both budgets, and unknown fields are 422", async () => {
    const adSet = await createAdSet(world, c);
    const locked = await world.h.call<ErrorEnvelope>("PATCH", `/ads/v1/adsets/${adSet.id}`, {
      key: c.adsFull,
      body: { name: "x", billing_event: "LINK_CLICKS" },
    });
    expect(locked.json.error?.details, describeResponse(locked)).toEqual({ locked_fields: ["name", "billing_event"] });
    const switched = await world.h.call<ErrorEnvelope<FieldIssue[]>>("PATCH", `/ads/v1/adsets/${adSet.id}`, {
      key: c.adsFull,
      body: { lifetime_budget_cents: 9000 },
    });
    expect(switched.status, describeResponse(switched)).toBe(422);
    expect(switched.json.error.details[0].field).toBe("lifetime_budget_cents");
    const both = await world.h.call("PATCH", `/ads/v1/adsets/${adSet.id}`, { key: c.adsFull, body: { daily_budget_cents: 10, lifetime_budget_cents: 9000 } });
    expect(both.status).toBe(422);
    const unknown = await world.h.call("PATCH", `/ads/v1/adsets/${adSet.id}`, { key: c.adsFull, body: { targeting: { age_min: 30 } } });
    expect(unknown.status, describeResponse(unknown)).toBe(422);
    const badStatus = await world.h.call("PATCH", `/ads/v1/adsets/${adSet.id}`, { key: c.adsFull, body: { status: "ARCHIVED" } });
    expect(badStatus.status).toBe(422);
  });

  test("every change, pausing too, needs an active target: 409", async () => {
    const own = await onboardedCustomer(world, "Ad sets target paused");
    const adSet = await createAdSet(world, own);
    await world.h.admin("PATCH", `/v1/customers/${own.id}/ads/targets/main`, { status: "PAUSED" });
    const listed = await world.h.call<Ads["listAdSets"]>("GET", "/ads/v1/adsets", { key: own.adsFull });
    expect(listed.json.data[0].effective_status, describeResponse(listed)).toBe("CAMPAIGN_PAUSED");
    const r = await world.h.call<ErrorEnvelope<StateDetails>>("PATCH", `/ads/v1/adsets/${adSet.id}`, { key: own.adsFull, body: { status: "PAUSED" } });
    expect(r.status, describeResponse(r)).toBe(409);
    expect(r.json.error.details.reason).toBe("target_inactive");
  });

  test("another customer's ad set is 404; an archived one is 409", async () => {
    const adSet = await createAdSet(world, c);
    const other = await onboardedCustomer(world, "Ad sets intruder");
    expect((await world.h.call("PATCH", `/ads/v1/adsets/${adSet.id}`, { key: other.adsFull, body: { status: "PAUSED" } })).status).toBe(404);
    expect((await world.h.call("DELETE", `/ads/v1/adsets/${adSet.id}`, { key: other.adsFull })).status).toBe(404);
    await world.h.call("DELETE", `/ads/v1/adsets/${adSet.id}`, { key: c.adsFull });
    const r = await world.h.call("PATCH", `/ads/v1/adsets/${adSet.id}`, { key: c.adsFull, body: { status: "ACTIVE" } });
    expect(r.status, describeResponse(r)).toBe(409);
  });

  test("403 with a reporting key", async () => {
    const adSet = await createAdSet(world, c);
    expect((await world.h.call("PATCH", `/ads/v1/adsets/${adSet.id}`, { key: c.adsReporting, body: { status: "PAUSED" } })).status).toBe(403);
    expect((await world.h.call("DELETE", `/ads/v1/adsets/${adSet.id}`, { key: c.adsReporting })).status).toBe(403);
  });
});

describe("DELETE /v1/adsets/{id}", () => {
  test("archives here and upstream with its ads; archiving again answers the same", async () => {
    const own = await onboardedCustomer(world, "Ad sets archive");
    const ad = await createAd(world, own);
    const r = await world.h.call<Ads["archiveAdSet"]>("DELETE", `/ads/v1/adsets/${ad.ad_set_id}`, { key: own.adsFull });
    expect(r.status, describeResponse(r)).toBe(200);
    expect(r.json.data).toMatchObject({ id: ad.ad_set_id, status: "ARCHIVED", effective_status: "ARCHIVED" });
    const platformId = r.json.data.platform_adset_id as string;
    expect(world.sim.state.adsets.get(platformId)?.status).toBe("ARCHIVED");
    const ads = await world.h.call<Ads["listAds"]>("GET", `/ads/v1/ads?adset_id=${ad.ad_set_id}`, { key: own.adsFull });
    expect(ads.json.data[0], describeResponse(ads)).toMatchObject({ id: ad.id, status: "ARCHIVED" });
    world.sim.clearRequests();
    const again = await world.h.call<Ads["archiveAdSet"]>("DELETE", `/ads/v1/adsets/${ad.ad_set_id}`, { key: own.adsFull });
    expect(again.json.data.status, describeResponse(again)).toBe("ARCHIVED");
    expect(world.sim.requests()).toEqual([]);
    const listed = await world.h.call<Ads["listAdSets"]>("GET", "/ads/v1/adsets?status=ARCHIVED", { key: own.adsFull });
    expect(listed.json.data.map((a: { id: string }) => a.id)).toEqual([ad.ad_set_id]);
  });
});
