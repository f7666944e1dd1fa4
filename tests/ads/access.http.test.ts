import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { describeResponse } from "../helpers/harness";
import { createAdsWorld, onboardedCustomer, type AdsWorld, type OnboardedCustomer } from "./support/ads-world";

/**
 * The access rules of every endpoint of this service in one table: a key is required, writes need the full
 * scope, and the account state decides (402 `payment_required` on every write unless the account is
 * active; reads stay open while deactivated or overdue, not while a checkout is open or the contract ended).
 * These checks run before the request body is read, so minimal bodies and unknown ids suffice.
 */
let world: AdsWorld;
const byState: Record<string, OnboardedCustomer> = {};
beforeAll(async () => {
  world = await createAdsWorld();
  for (const state of ["active", "deactivated", "overdue", "checkout_open", "ended"]) {
    const c = await onboardedCustomer(world, `Access ${state}`);
    const r = await world.h.admin("PATCH", `/v1/customers/${c.id}`, { ads: { account_state: state } });
    if (r.status !== 200) throw new Error(`account state: ${describeResponse(r)}`);
    byState[state] = c;
  }
});
afterAll(async () => world.close());

const id = "0f8fad5b-d9cb-469f-a165-70867728950e";

const WRITES: [method: string, path: string, body?: unknown][] = [
  ["POST", "/ads/v1/media/images", { url: "https://images.example.com/a.jpg" }],
  ["POST", "/ads/v1/media/videos", { url: "https://videos.example.com/a.mp4" }],
  ["POST", "/ads/v1/adsets", { target: "main", daily_budget_cents: 2500 }],
  ["PATCH", `/ads/v1/adsets/${id}`, { status: "PAUSED" }],
  ["DELETE", `/ads/v1/adsets/${id}`],
  ["POST", "/ads/v1/creatives", { image_hash: "0123456789abcdef0123456789abcdef" }],
  ["PATCH", `/ads/v1/creatives/${id}`, { name: "Renamed" }],
  ["DELETE", `/ads/v1/creatives/${id}`],
  ["POST", "/ads/v1/ads", { ad_set_id: id, creative_id: id, link: "https://shop.example.com/" }],
  ["PATCH", `/ads/v1/ads/${id}`, { status: "ACTIVE" }],
  ["DELETE", `/ads/v1/ads/${id}`],
  ["POST", "/ads/v1/audiences/custom", { name: "CRM", contacts: [{ email: "a@example.com" }] }],
  ["POST", "/ads/v1/audiences/lookalike", { name: "Twins", origin_audience_id: id, country: "DE", ratio: 0.01 }],
  ["PATCH", `/ads/v1/audiences/${id}`, { name: "Renamed" }],
  ["DELETE", `/ads/v1/audiences/${id}`],
  ["POST", `/ads/v1/audiences/${id}/contacts`, { contacts: [{ email: "a@example.com" }] }],
  ["DELETE", `/ads/v1/audiences/${id}/contacts`, { contacts: [{ email: "a@example.com" }] }],
];

/** What an overdue (readable) account gets: the list answers, unknown ids are 404 like for anyone. */
const READS: [path: string, readable: number][] = [
  ["/ads/v1/media/images", 200],
  ["/ads/v1/media/videos", 200],
  [`/ads/v1/media/videos/${id}`, 404],
  ["/ads/v1/adsets", 200],
  ["/ads/v1/creatives", 200],
  ["/ads/v1/ads", 200],
  [`/ads/v1/status/${id}`, 404],
  ["/ads/v1/audiences", 200],
  [`/ads/v1/audiences/${id}`, 404],
  ["/ads/v1/targeting/geo?q=wien", 200],
  ["/ads/v1/targeting/interests?q=yoga", 200],
];

const call = (method: string, path: string, key: string | undefined, body?: unknown) => world.h.call(method, path, { key, body });

describe.each(WRITES)("%s %s", (method, path, body) => {
  test("401 without a key, 403 with a reporting key", async () => {
    const anonymous = await call(method, path, undefined, body);
    expect(anonymous.status, describeResponse(anonymous)).toBe(401);
    const reporting = await call(method, path, byState.active?.adsReporting, body);
    expect(reporting.status, describeResponse(reporting)).toBe(403);
    expect(reporting.json.error.code).toBe("forbidden");
  });

  test.each(["deactivated", "overdue", "checkout_open", "ended"])("402 payment_required while the account is %s, before any platform call", async (state) => {
    world.sim.clearRequests();
    const r = await call(method, path, byState[state]?.adsFull, body);
    expect(r.status, describeResponse(r)).toBe(402);
    expect(r.json.error, describeResponse(r)).toMatchObject({ code: "payment_required", details: { account_state: state } });
    expect(world.sim.requests()).toEqual([]);
  });
});

describe.each(READS)("GET %s", (path, readable) => {
  test("401 without a key; the reporting scope suffices", async () => {
    expect((await call("GET", path, undefined)).status).toBe(401);
    const r = await call("GET", path, byState.active?.adsReporting);
    expect(r.status, describeResponse(r)).toBe(readable);
  });

  test.each(["deactivated", "overdue"])("stays readable while the account is %s", async (state) => {
    const r = await call("GET", path, byState[state]?.adsReporting);
    expect(r.status, describeResponse(r)).toBe(readable);
  });

  test.each(["checkout_open", "ended"])("402 while the account is %s", async (state) => {
    const r = await call("GET", path, byState[state]?.adsReporting);
    expect(r.status, describeResponse(r)).toBe(402);
    expect(r.json.error.code).toBe("payment_required");
  });
});
