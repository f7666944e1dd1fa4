import { afterAll, beforeAll, expect, test } from "vitest";
import { createHarness, describeResponse, type Harness, type ErrorEnvelope } from "../helpers/harness";

let h: Harness;
let c: Awaited<ReturnType<Harness["customer"]>>;

beforeAll(async () => {
  h = await createHarness();
  c = await h.customer("Throttle Co");
});
afterAll(async () => h.close());

const from = <T>(address: string, key: string | null, path = "/mail/v1/templates") => h.call<T>("GET", path, { key, headers: { "x-forwarded-for": address } });

test("failed authentications are limited per client address: 60 a minute answer 401, then 429 for any key from it until the window resets", async () => {
  const attacker = "198.51.100.7";
  for (let i = 0; i < 60; i++) {
    const r = await from(attacker, `mk_live_${"x".repeat(40)}${i}`);
    expect(r.status, describeResponse(r)).toBe(401);
  }
  const over = await from<ErrorEnvelope>(attacker, `mk_live_${"y".repeat(41)}`);
  expect(over.status, describeResponse(over)).toBe(429);
  expect(over.json.error.code).toBe("rate_limited");
  expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
  expect(over.json.request_id).toBeTruthy();
  // A right guess is not told apart while blocked; no key at all neither.
  expect((await from(attacker, c.mailFull)).status).toBe(429);
  expect((await from(attacker, null)).status).toBe(429);
  expect((await from(attacker, null, "/ads/v1/adsets")).status).toBe(429);

  // Other addresses are not affected, and valid keys never count.
  const neighbour = "203.0.113.9";
  expect((await from(neighbour, "mk_live_wrong")).status).toBe(401);
  const key = c.mailFull;
  for (let i = 0; i < 80; i++) expect((await from(neighbour, key)).status).toBe(200);

  // After the window (and the sliding weight of the previous one) the address may try again.
  h.clock.advance(121_000);
  expect((await from(attacker, "mk_live_wrong")).status).toBe(401);
  expect((await from(attacker, key)).status).toBe(200);
});

test("the operator API counts failed tokens the same way", async () => {
  const address = "192.0.2.44";
  const admin = (token: string) => h.call("GET", "/admin/v1/customers", { key: token, headers: { "x-forwarded-for": address } });
  for (let i = 0; i < 60; i++) expect((await admin(`wrong-token-${i}-${"z".repeat(24)}`)).status).toBe(401);
  const over = await admin("wrong-again-zzzzzzzzzzzzzzzzzzzzzzzz");
  expect(over.status, describeResponse(over)).toBe(429);
  expect(over.headers.get("retry-after")).toBeTruthy();
  expect((await admin(h.deps.adminToken)).status).toBe(429);
  expect((await h.call("GET", "/admin/v1/customers", { key: h.deps.adminToken, headers: { "x-forwarded-for": "192.0.2.45" } })).status).toBe(200);
});
