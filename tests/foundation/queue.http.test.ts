import { createHash } from "node:crypto";
import { SignJWT } from "jose";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createLocalQueue } from "../../lib/adapters/queue";
import { createLogger } from "../../lib/base/logger";
import { createHarness, describeResponse, type Harness } from "../helpers/harness";

const signingKey = "sig_current_test_key_0123456789";
let h: Harness;
const received: Record<string, unknown>[] = [];

beforeAll(async () => {
  h = await createHarness({
    env: { QSTASH_CURRENT_SIGNING_KEY: signingKey, QSTASH_NEXT_SIGNING_KEY: "sig_next_test_key_0123456789", PUBLIC_BASE_URL: "https://middleware.example.com" },
  });
  h.deps.queue.register("probe", async (body) => {
    received.push(body);
  });
});
afterAll(async () => h.close());

/** A token shaped exactly like QStash's: HS256, issuer Upstash, subject = URL, body = base64url SHA-256. */
async function qstashSignature(url: string, body: string, key = signingKey): Promise<string> {
  const bodyHash = createHash("sha256").update(body).digest("base64url");
  return new SignJWT({ body: bodyHash })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer("Upstash")
    .setSubject(url)
    .setIssuedAt()
    .setNotBefore("0s")
    .setExpirationTime("5m")
    .setJti(crypto.randomUUID())
    .sign(new TextEncoder().encode(key));
}

test("the QStash worker route runs the handler only for a valid Upstash-Signature over the raw body and URL", async () => {
  const body = JSON.stringify({ job: "a" });
  const url = "https://middleware.example.com/api/queue/probe";
  const ok = await h.call("POST", "/api/queue/probe", {
    rawBody: body,
    headers: { "content-type": "application/json", "upstash-signature": await qstashSignature(url, body) },
  });
  expect(ok.status, describeResponse(ok)).toBe(200);
  expect(received).toEqual([{ job: "a" }]);

  const tampered = await h.call("POST", "/api/queue/probe", {
    rawBody: JSON.stringify({ job: "b" }),
    headers: { "upstash-signature": await qstashSignature(url, body) },
  });
  expect(tampered.status).toBe(401);
  const otherUrl = await h.call("POST", "/api/queue/probe", {
    rawBody: body,
    headers: { "upstash-signature": await qstashSignature("https://evil.example.com/api/queue/probe", body) },
  });
  expect(otherUrl.status).toBe(401);
  const wrongKey = await h.call("POST", "/api/queue/probe", {
    rawBody: body,
    headers: { "upstash-signature": await qstashSignature(url, body, "another_key_entirely_000000") },
  });
  expect(wrongKey.status).toBe(401);
  expect((await h.call("POST", "/api/queue/probe", { rawBody: body })).status).toBe(401);
  expect(received).toHaveLength(1);
});

test("the local queue retries a failing handler with backoff and honours deduplication ids", async () => {
  const queue = createLocalQueue({ logger: createLogger("silent"), retryBaseMs: 5, maxAttempts: 3 });
  const attempts: number[] = [];
  queue.register("flaky", async (_body, meta) => {
    attempts.push(meta.attempt);
    if (meta.attempt < 3) throw new Error("not yet");
  });
  await queue.publish("flaky", { n: 1 }, { deduplicationId: "same" });
  await queue.publish("flaky", { n: 1 }, { deduplicationId: "same" });
  await queue.idle();
  expect(attempts).toEqual([1, 2, 3]);
  queue.close();
});

test("the local queue forgets a deduplication id after its ten-minute window", async () => {
  const queue = createLocalQueue({ logger: createLogger("silent") });
  let runs = 0;
  queue.register("once", async () => {
    runs++;
  });
  const realNow = Date.now;
  let now = realNow();
  Date.now = () => now;
  try {
    await queue.publish("once", {}, { deduplicationId: "a" });
    await queue.publish("once", {}, { deduplicationId: "b" });
    now += 9 * 60_000;
    await queue.publish("once", {}, { deduplicationId: "a" });
    await queue.idle();
    expect(runs).toBe(2);
    now += 2 * 60_000;
    // Past the window: both ids are forgotten, so each runs again (once).
    await queue.publish("once", {}, { deduplicationId: "b" });
    await queue.publish("once", {}, { deduplicationId: "a" });
    await queue.publish("once", {}, { deduplicationId: "a" });
    await queue.idle();
    expect(runs).toBe(4);
  } finally {
    Date.now = realNow;
    queue.close();
  }
});
