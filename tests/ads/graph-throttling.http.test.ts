import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { INSIGHTS_SNAPSHOT_TOPIC } from "../../lib/ads/insights/snapshots";
import { findCronJob } from "../../lib/cron";
import { adsInsightSyncs } from "../../lib/db/schema";
import { describeResponse, type CallResult, type ErrorEnvelope } from "../helpers/harness";
import { createAd, createAdsWorld, onboardedCustomer, type AdsWorld } from "./support/ads-world";

/**
 * Graph throttling over HTTP against the simulator's per-ad-account call budget (Business Use Case limits):
 * the client reads the usage headers and backs off per ad account before Graph refuses; a throttling code
 * pauses that account for Graph's `estimated_time_to_regain_access`; customers get 429 with Retry-After; the
 * snapshot cron goes on from where it stopped; the status poll defers the account.
 */
let world: AdsWorld;
beforeAll(async () => {
  world = await createAdsWorld();
});
afterAll(async () => world.close());

/** Time passes for us (the harness clock) and for the platform (the simulator's clock). */
function advance(ms: number) {
  world.h.clock.advance(ms);
  world.sim.advance(ms);
}

test("near its budget an ad account pauses before the platform refuses: 429 with Retry-After, nothing refused, other accounts unaffected", async () => {
  const busy = await onboardedCustomer(world, "Throttle busy");
  const calm = await onboardedCustomer(world, "Throttle calm");
  world.sim.throttle(busy.adAccountId, { limit: 12, windowMs: 3600_000 });
  const statuses: number[] = [];
  let refusal: CallResult<ErrorEnvelope> | undefined;
  for (let i = 0; i < 15 && !refusal; i++) {
    const r = await world.h.call<ErrorEnvelope>("GET", "/ads/v1/media/images", { key: busy.adsFull });
    statuses.push(r.status);
    if (r.status !== 200) refusal = r;
  }
  expect(refusal, `statuses ${statuses.join(",")}`).toBeDefined();
  if (!refusal) return;
  expect(refusal.status, describeResponse(refusal)).toBe(429);
  expect(refusal.json.error.code).toBe("rate_limited");
  expect(Number(refusal.headers.get("retry-after"))).toBeGreaterThan(60);
  const state = world.sim.throttleState(busy.adAccountId);
  expect(state?.refused, "the platform never had to refuse a call").toBe(0);
  expect(state?.calls).toBeGreaterThanOrEqual(11);

  expect((await world.h.call("GET", "/ads/v1/media/images", { key: calm.adsFull })).status).toBe(200);
  // Once the budget window has passed, the account works again.
  advance(3600_000);
  const later = await world.h.call("GET", "/ads/v1/media/images", { key: busy.adsFull });
  expect(later.status, describeResponse(later)).toBe(200);
  world.sim.throttle(busy.adAccountId, null);
});

test("a throttling code pauses the account for Graph's estimate: the next request is answered without calling, and works after it", async () => {
  const limited = await onboardedCustomer(world, "Throttle code");
  world.sim.failNext({ code: 613, subcode: 1487742, estimatedTimeToRegainAccess: 2, match: { path: `act_${limited.adAccountId}/adimages` } });
  const first = await world.h.call("GET", "/ads/v1/media/images", { key: limited.adsFull });
  expect(first.status, describeResponse(first)).toBe(429);
  expect(first.headers.get("retry-after")).toBe("120");
  world.sim.clearRequests();
  const second = await world.h.call<ErrorEnvelope>("POST", "/ads/v1/adsets", { key: limited.adsFull, body: { target: "main", daily_budget_cents: 2500 } });
  expect(second.status, describeResponse(second)).toBe(429);
  expect(second.json.error).toMatchObject({ code: "rate_limited", message: expect.stringContaining("rate limit") });
  expect(world.sim.requests(), "no call reached the platform").toEqual([]);
  advance(120_000);
  const after = await world.h.call("POST", "/ads/v1/adsets", { key: limited.adsFull, body: { target: "main", daily_budget_cents: 2500 } });
  expect(after.status, describeResponse(after)).toBe(201);
});

test("the snapshot pull stops before the budget is spent and goes on from where it stopped: every query once, none refused", { timeout: 120_000 }, async () => {
  const account = await onboardedCustomer(world, "Throttle snapshot");
  await createAd(world, account, { status: "ACTIVE" });
  world.sim.throttle(account.adAccountId, { limit: 40, windowMs: 3600_000 });
  const worker = world.h.deps.queue.handler(INSIGHTS_SNAPSHOT_TOPIC);
  if (!worker) throw new Error("the snapshot worker is not registered");
  world.sim.clearRequests();
  let message: Record<string, unknown> = { customer_id: account.id, rate_limit_delays: 0 };
  let interruptions = 0;
  for (let round = 0; round < 8; round++) {
    const seen = world.h.logLines.length;
    await worker(message, { attempt: 1 });
    const line = world.h.logLines.slice(seen).find((entry) => entry.includes("insights snapshot rate limited") && entry.includes(account.id));
    if (!line) break;
    interruptions++;
    const logged = JSON.parse(line) as { resume: Record<string, unknown>; delay_seconds: number };
    expect(logged.delay_seconds).toBeGreaterThanOrEqual(60);
    // What the delayed queue message carries, delivered once its time has come.
    message = { customer_id: account.id, rate_limit_delays: 0, resume: logged.resume };
    advance(logged.delay_seconds * 1000);
  }
  expect(interruptions, "a backfill of 81 queries does not fit a budget of 40 an hour").toBeGreaterThanOrEqual(2);
  expect(world.h.logLines.some((line) => line.includes("insights snapshot stored") && line.includes(account.id))).toBe(true);
  const queries = world.sim
    .requests()
    .filter((request) => request.path.endsWith(`act_${account.adAccountId}/insights`))
    .map((request) => `${request.query.time_range} ${request.query.breakdowns ?? ""} ${request.query.after ?? ""}`);
  expect(queries.length).toBeGreaterThanOrEqual(81);
  expect(new Set(queries).size, "no query was repeated after a pause").toBe(queries.length);
  expect(world.sim.throttleState(account.adAccountId)?.refused).toBe(0);
  const [sync] = await world.h.deps.db.select().from(adsInsightSyncs).where(eq(adsInsightSyncs.customerId, account.id));
  expect(sync).toMatchObject({ lastError: null, syncedThrough: expect.any(String) });
  world.sim.throttle(account.adAccountId, null);
});

test("the status poll defers a throttled account without calling it and reads it once the pause is over", async () => {
  const polled = await onboardedCustomer(world, "Throttle poll");
  const ad = await createAd(world, polled, { status: "ACTIVE" });
  const poll = findCronJob("ads-status-poll");
  if (!poll) throw new Error("the ads-status-poll cron is not registered");
  // One call left in the window: the customer's own request spends it and the usage header says 100 %.
  world.sim.throttle(polled.adAccountId, { limit: 1, windowMs: 60_000 });
  expect((await world.h.call("GET", "/ads/v1/media/images", { key: polled.adsFull })).status).toBe(200);
  world.sim.clearRequests();
  const readsOfAd = () => world.sim.requests().filter((request) => (request.query.ids ?? request.path).includes(ad.platform_ad_id));
  const first = await poll.run(world.h.cronDeps);
  expect(Number(first.deferred), JSON.stringify(first)).toBeGreaterThan(0);
  expect(readsOfAd(), "the paused account was not called").toEqual([]);
  expect(world.sim.throttleState(polled.adAccountId)?.refused).toBe(0);
  advance(60_000);
  world.sim.throttle(polled.adAccountId, null);
  await poll.run(world.h.cronDeps);
  expect(readsOfAd().length).toBeGreaterThan(0);
});
