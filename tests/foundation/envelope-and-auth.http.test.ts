import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { sql } from "drizzle-orm";
import { createHarness, describeResponse, type Harness, type ErrorEnvelope, type Admin, type Ads, type Mail } from "../helpers/harness";

let h: Harness;
let c: Awaited<ReturnType<Harness["customer"]>>;

beforeAll(async () => {
  h = await createHarness();
  c = await h.customer("Envelope Co");
});
afterAll(async () => h.close());

describe.each([
  ["mail", "/mail/v1"],
  ["ads", "/ads/v1"],
] as const)("%s service core", (service, base) => {
  const full = () => (service === "mail" ? c.mailFull : c.adsFull);
  const other = () => (service === "mail" ? c.adsFull : c.mailFull);
  type Health = Mail["getMailHealth"] | Ads["getAdsHealth"];

  test("health answers in the envelope with a UUID request id and Service-Version", async () => {
    const r = await h.call<Health>("GET", `${base}/health`, { key: full() });
    expect(r.status, describeResponse(r)).toBe(200);
    expect(r.json.data).toEqual({ status: "ok", api_version: "v1" });
    expect(r.json.request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.headers.get("x-request-id")).toBe(r.json.request_id);
    expect(r.headers.get("service-version")).toBe("v1");
  });

  test("a valid X-Request-Id is echoed; an invalid or over-long one is replaced", async () => {
    const mine = await h.call<Health>("GET", `${base}/health`, { key: full(), headers: { "x-request-id": "portal-42.abc:1" } });
    expect(mine.json.request_id).toBe("portal-42.abc:1");
    expect(mine.headers.get("x-request-id")).toBe("portal-42.abc:1");
    const bad = await h.call<Health>("GET", `${base}/health`, { key: full(), headers: { "x-request-id": "a".repeat(129) } });
    expect(bad.json.request_id).toMatch(/^[0-9a-f-]{36}$/);
    const evil = await h.call<Health>("GET", `${base}/health`, { key: full(), headers: { "x-request-id": "<script>" } });
    expect(evil.json.request_id).not.toContain("<");
  });

  test("Service-Version v1 is accepted, anything else is 400", async () => {
    expect((await h.call<Health>("GET", `${base}/health`, { key: full(), headers: { "service-version": "v1" } })).status).toBe(200);
    const r = await h.call<ErrorEnvelope>("GET", `${base}/health`, { key: full(), headers: { "service-version": "v2" } });
    expect(r.status, describeResponse(r)).toBe(400);
    expect(r.json.error.code).toBe("bad_request");
    expect(r.json.error.message).toContain("Service-Version");
  });

  test.each([
    ["no header", null],
    ["garbage", "nope"],
    ["well-formed but unknown", `${service === "mail" ? "mk" : "ak"}_live_${"x".repeat(32)}`],
  ])("401 for %s", async (_label, key) => {
    const r = await h.call<ErrorEnvelope>("GET", `${base}/health`, { key });
    expect(r.status, describeResponse(r)).toBe(401);
    expect(r.json.error.code).toBe("unauthorized");
    expect(r.json.request_id).toBeTruthy();
    expect(r.headers.get("x-ratelimit-limit")).toBeNull();
  });

  test("a key of the other service is 401", async () => {
    const r = await h.call("GET", `${base}/health`, { key: other() });
    expect(r.status, describeResponse(r)).toBe(401);
  });

  test("a revoked key is 401 from the next request on", async () => {
    const issued = await h.admin<Admin["issueApiKey"]>("POST", `/v1/customers/${c.id}/keys`, { service, scope: "full" });
    const key: string = issued.json.data.key;
    expect((await h.call("GET", `${base}/health`, { key })).status).toBe(200);
    const revoked = await h.admin<Admin["revokeApiKey"]>("DELETE", `/v1/keys/${issued.json.data.id}`);
    expect(revoked.status, describeResponse(revoked)).toBe(200);
    expect(revoked.json.data.revoked_at).not.toBeNull();
    const r = await h.call<ErrorEnvelope>("GET", `${base}/health`, { key });
    expect(r.status, describeResponse(r)).toBe(401);
    expect(r.json.error.message).toBe((await h.call<ErrorEnvelope>("GET", `${base}/health`, { key: "unknown" })).json.error.message);
  });

  test("unknown paths answer 404 in the envelope", async () => {
    const r = await h.call<ErrorEnvelope>("GET", `${base}/nothing-here`, { key: full() });
    expect(r.status, describeResponse(r)).toBe(404);
    expect(r.json.error.code).toBe("not_found");
    expect(r.json.request_id).toBeTruthy();
  });
});

test("ads: a known path with the wrong method is 405 with Allow", async () => {
  const r = await h.call<ErrorEnvelope>("DELETE", "/ads/v1/health", { key: c.adsFull });
  expect(r.status, describeResponse(r)).toBe(405);
  expect(r.json.error.code).toBe("method_not_allowed");
  expect(r.headers.get("allow")).toBe("GET, HEAD");
});

test("paths outside every service answer 404 in the envelope", async () => {
  const r = await h.call<ErrorEnvelope>("GET", "/nowhere");
  expect(r.status).toBe(404);
  expect(r.json.error.code).toBe("not_found");
});

test("keys are stored only as SHA-256 hashes and never appear in logs", async () => {
  const rows = await h.db.execute(sql`select prefix, hash from api_keys`);
  const text = JSON.stringify(rows);
  expect(text).not.toContain(c.mailFull);
  expect(text).toContain(c.mailFull.slice(0, 12));
  expect(h.logLines.join("\n")).not.toContain(c.mailFull);
});

describe("every answer says nosniff; an error without details has details []", () => {
  test.each([
    ["the root", "/nothing-here", null],
    ["the mail API", "/mail/v1/nothing-here", "mail"],
    ["the ads API", "/ads/v1/nothing-here", "ads"],
    ["the admin API", "/admin/v1/nothing-here", "admin"],
    ["the internal endpoints", "/api/nothing-here", null],
    ["the published files", "/files/assets/nothing.png", null],
    ["the console", "/console/api/nothing-here", null],
  ] as const)("a 4xx of %s", async (_name, path, service) => {
    const key = service === "mail" ? c.mailFull : service === "ads" ? c.adsFull : service === "admin" ? h.deps.adminToken : null;
    const r = await h.call<ErrorEnvelope>("GET", path, { key });
    expect(r.status, describeResponse(r)).toBeGreaterThanOrEqual(400);
    expect(r.headers.get("x-content-type-options"), describeResponse(r)).toBe("nosniff");
    expect(r.json.error.details, describeResponse(r)).toEqual([]);
  });

  test.each([
    ["the root's health", "GET", "/health"],
    ["the root's llms.txt", "GET", "/llms.txt"],
    ["the favicon", "GET", "/favicon.ico"],
    ["the MCP endpoint", "GET", "/mcp"],
    ["the console's sign-in page", "GET", "/console/sign-in"],
    ["the console's page", "GET", "/console/"],
    ["the mail OpenAPI document", "GET", "/mail/v1/openapi.json"],
    ["the ads OpenAPI document", "GET", "/ads/v1/openapi.json"],
    ["the admin OpenAPI document", "GET", "/admin/v1/openapi.json"],
    ["a preflight", "OPTIONS", "/mail/v1/templates"],
    ["a body over the limit (413)", "POST", "/mail/v1/templates"],
  ] as const)("%s says nosniff", async (_name, method, path) => {
    const headers: Record<string, string> = method === "OPTIONS" ? { origin: "https://portal.example", "access-control-request-method": "POST" } : {};
    const body = path === "/mail/v1/templates" && method === "POST" ? new Uint8Array(5 * 1024 * 1024) : undefined;
    if (body) headers["content-type"] = "application/json";
    const response = await h.root.request(path, { method, headers, body });
    await response.arrayBuffer();
    expect(response.headers.get("x-content-type-options"), `${method} ${path} → ${response.status}`).toBe("nosniff");
  });

  test("a success says nosniff too", async () => {
    const r = await h.call("GET", "/ads/v1/health", { key: c.adsFull });
    expect(r.status, describeResponse(r)).toBe(200);
    expect(r.headers.get("x-content-type-options")).toBe("nosniff");
  });
});
