import { afterAll, beforeAll, expect, test } from "vitest";
import { describeResponse, type ErrorEnvelope } from "../helpers/harness";
import { createAdSet, createAdsWorld, onboardedCustomer, type AdsWorld, type OnboardedCustomer } from "./support/ads-world";

/** How the platform's failures reach the customer: through `describePlatformError`, never raw. */
let world: AdsWorld;
let c: OnboardedCustomer;
beforeAll(async () => {
  world = await createAdsWorld();
  c = await onboardedCustomer(world, "Upstream errors");
});
afterAll(async () => world.close());

const createBody = { target: "main", daily_budget_cents: 2500 };

test("a rate limit the platform says lasts minutes is a 429 with Retry-After, not waited out; the account then waits without calling", async () => {
  const limited = await onboardedCustomer(world, "Rate limited");
  world.sim.failNext({ code: 80004, estimatedTimeToRegainAccess: 5, match: { method: "POST", path: "/adsets" } });
  const r = await world.h.call<ErrorEnvelope>("POST", "/ads/v1/adsets", { key: limited.adsFull, body: createBody });
  expect(r.status, describeResponse(r)).toBe(429);
  expect(r.json.error.code).toBe("rate_limited");
  expect(r.headers.get("retry-after")).toBe("300");
  // The ad account is paused for those 5 minutes: the next request is answered without calling the platform.
  world.sim.clearRequests();
  const again = await world.h.call("POST", "/ads/v1/adsets", { key: limited.adsFull, body: createBody });
  expect(again.status, describeResponse(again)).toBe(429);
  expect(Number(again.headers.get("retry-after"))).toBeGreaterThan(0);
  expect(world.sim.requests()).toEqual([]);
});

test("a short rate limit is retried with backoff and the request succeeds", async () => {
  world.sim.clearRequests();
  world.sim.failNext({ code: 17, match: { method: "POST", path: "/adsets" } });
  const r = await world.h.call("POST", "/ads/v1/adsets", { key: c.adsFull, body: createBody });
  expect(r.status, describeResponse(r)).toBe(201);
  expect(world.sim.requests().filter((request) => request.method === "POST" && request.path.endsWith("/adsets"))).toHaveLength(2);
});

test("an outage that outlasts the retries is a 5xx with Retry-After", async () => {
  world.sim.failNext({ code: 2, count: 3, match: { method: "GET" } });
  const before = await world.h.call<ErrorEnvelope>("GET", "/ads/v1/media/images", { key: c.adsFull });
  expect(before.status, describeResponse(before)).toBe(500);
  expect(before.json.error.code).toBe("internal_error");
  expect(before.headers.get("retry-after")).toBe("30");
});

test("a platform validation error names our field", async () => {
  const adSet = await createAdSet(world, c);
  const r = await world.h.call<ErrorEnvelope>("PATCH", `/ads/v1/adsets/${adSet.id}`, { key: c.adsFull, body: { daily_budget_cents: 10 } });
  expect(r.status, describeResponse(r)).toBe(422);
  expect(r.json.error.details).toEqual([{ field: "daily_budget_cents", issue: expect.stringContaining("minimum") }]);
});

test("an expired token is a 5xx for the customer and an operator log line without the token", async () => {
  const own = await onboardedCustomer(world, "Expired token");
  world.sim.expireToken(own.accessToken);
  const lines = world.h.logLines.length;
  const r = await world.h.call<ErrorEnvelope>("POST", "/ads/v1/adsets", { key: own.adsFull, body: createBody });
  expect(r.status, describeResponse(r)).toBe(500);
  expect(r.json.error.code).toBe("internal_error");
  expect(r.text).not.toContain(own.accessToken);
  const logged = world.h.logLines.slice(lines).join("\n");
  expect(logged).toContain("PATCH /admin/v1/customers/{id}/ads/account");
  expect(logged).toContain(own.id);
  expect(logged).toContain('"code":190');
  expect(logged).not.toContain(own.accessToken);
  expect(logged).not.toContain(own.appSecret);
});

test("a permission error is a 5xx and logged for the operator", async () => {
  world.sim.failNext({ code: 10, message: "(#10) Application does not have permission for this action", match: { path: "/adsets" } });
  const lines = world.h.logLines.length;
  const r = await world.h.call("POST", "/ads/v1/adsets", { key: c.adsFull, body: createBody });
  expect(r.status, describeResponse(r)).toBe(500);
  expect(world.h.logLines.slice(lines).join("\n")).toContain("denied access");
});

test("secrets never appear in any response or log line of this suite", () => {
  expect(world.h.logLines.join("\n")).not.toContain(c.accessToken);
});
