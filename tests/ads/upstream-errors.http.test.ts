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

test("an expired token answers 422 details.missing on the first call as on later ones, and an operator log line without the token", async () => {
  const own = await onboardedCustomer(world, "Expired token");
  world.sim.expireToken(own.accessToken);
  const lines = world.h.logLines.length;
  const r = await world.h.call<ErrorEnvelope>("POST", "/ads/v1/adsets", { key: own.adsFull, body: createBody });
  expect(r.status, describeResponse(r)).toBe(422);
  expect(r.json.error).toMatchObject({ code: "validation_error", details: { missing: ["access_token"] } });
  expect(r.text).not.toContain(own.accessToken);
  const later = await world.h.call<ErrorEnvelope>("POST", "/ads/v1/adsets", { key: own.adsFull, body: createBody });
  expect(later.json, describeResponse(later)).toEqual({ ...r.json, request_id: later.json.request_id });
  const logged = world.h.logLines.slice(lines).join("\n");
  expect(logged).toContain("PATCH /admin/v1/customers/{id}/ads/account");
  expect(logged).toContain(own.id);
  expect(logged).toContain('"code":190');
  expect(logged).not.toContain(own.accessToken);
  expect(logged).not.toContain(own.appSecret);
});

/**
 * Every code Graph's error reference lists for the Marketing API (docs PROVIDER-FACTS G2), in the shape Graph
 * sends it (`message` with its `(#code)` prefix, `type`, `code`, `error_subcode`, `is_transient`, and for the
 * errors written for users `error_user_title`/`error_user_msg`), through the real client and the simulator, as
 * the customer meets it on `POST /v1/adsets`; each row on a customer of its own (a token refusal is recorded, a
 * throttle pauses the ad account). Each fault is injected for exactly the calls it meets (a transient one
 * for the client's three attempts), so none is left over for the next row.
 */
type CodeRow = {
  name: string;
  fault?: Parameters<AdsWorld["sim"]["failNext"]>[0];
  expireSubcode?: number;
  status: number;
  code: string;
  details?: unknown;
  retryAfter?: boolean;
};
const userFacing = { userTitle: "Budget too low", userMessage: "The daily budget must be at least 1.00 EUR." };
const codeRows: CodeRow[] = [
  { name: "1 unknown error (transient, outlasts the retries)", fault: { code: 1, count: 3 }, status: 500, code: "internal_error", retryAfter: true },
  { name: "2 service unavailable (transient, outlasts the retries)", fault: { code: 2, count: 3 }, status: 500, code: "internal_error", retryAfter: true },
  // Every Business Use Case code (80000–80014: insights, pages, Instagram, custom audiences, ads management, …).
  ...[4, 17, 32, 341, ...Array.from({ length: 15 }, (_, i) => 80000 + i)].map(
    (code): CodeRow => ({ name: `${code} throttled`, fault: { code, estimatedTimeToRegainAccess: 5 }, status: 429, code: "rate_limited", retryAfter: true }),
  ),
  {
    name: "613/1487742 ad-account calls",
    fault: { code: 613, subcode: 1487742, estimatedTimeToRegainAccess: 5 },
    status: 429,
    code: "rate_limited",
    retryAfter: true,
  },
  {
    name: "17/2446079 user request limit",
    fault: { code: 17, subcode: 2446079, estimatedTimeToRegainAccess: 5 },
    status: 429,
    code: "rate_limited",
    retryAfter: true,
  },
  ...[10, 200, 294, 299].map(
    (code): CodeRow => ({ name: `${code} permission`, fault: { code, message: `(#${code}) Permissions error` }, status: 500, code: "internal_error" }),
  ),
  ...[458, 459, 460, 463, 464, 467].map(
    (subcode): CodeRow => ({
      name: `190/${subcode} token refused`,
      expireSubcode: subcode,
      status: 422,
      code: "validation_error",
      details: { missing: ["access_token"] },
    }),
  ),
  {
    name: "100 invalid parameter, written for the user",
    fault: { code: 100, message: "Invalid parameter", ...userFacing },
    status: 422,
    code: "validation_error",
    details: [{ field: "request", issue: userFacing.userMessage }],
  },
  {
    name: "100/1487694 invalid parameter with its subcode",
    fault: { code: 100, subcode: 1487694, message: "Invalid parameter", ...userFacing },
    status: 422,
    code: "validation_error",
    details: [{ field: "request", issue: userFacing.userMessage }],
  },
  {
    name: "368 policy block",
    fault: {
      code: 368,
      message: "(#368) The action attempted has been deemed abusive or is otherwise disallowed",
      userTitle: "Blocked",
      userMessage: "This ad account is blocked from this action.",
    },
    status: 422,
    code: "validation_error",
    details: [{ field: "request", issue: "This ad account is blocked from this action." }],
  },
  {
    name: "506 duplicate post",
    fault: { code: 506, message: "(#506) Duplicate status message", userTitle: "Duplicate", userMessage: "This was already posted." },
    status: 422,
    code: "validation_error",
    details: [{ field: "request", issue: "This was already posted." }],
  },
  {
    name: "100 parameter check not written for users (our request)",
    fault: { code: 100, message: "(#100) Param name must be a valid string" },
    status: 500,
    code: "internal_error",
  },
];

test.each(codeRows)("Graph error $name answers $status $code", async (row) => {
  const own = await onboardedCustomer(world, `Graph ${row.name}`);
  if (row.expireSubcode !== undefined) world.sim.expireToken(own.accessToken, row.expireSubcode);
  if (row.fault) world.sim.failNext({ ...row.fault, match: { method: "POST", path: "/adsets" } });
  const r = await world.h.call<ErrorEnvelope>("POST", "/ads/v1/adsets", { key: own.adsFull, body: createBody });
  expect(r.status, describeResponse(r)).toBe(row.status);
  expect(r.json.error.code, describeResponse(r)).toBe(row.code);
  expect(r.json.error.details, describeResponse(r)).toEqual(row.details ?? []);
  if (row.retryAfter) expect(Number(r.headers.get("retry-after")), describeResponse(r)).toBeGreaterThan(0);
  expect(r.text).not.toContain(own.accessToken);
  if (row.expireSubcode !== undefined) {
    const later = await world.h.call<ErrorEnvelope>("POST", "/ads/v1/adsets", { key: own.adsFull, body: createBody });
    expect([later.status, later.json.error.details], describeResponse(later)).toEqual([422, { missing: ["access_token"] }]);
  }
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
