import { serve, type ServerType } from "@hono/node-server";
import type { AddressInfo } from "node:net";
import { Hono } from "hono";
import { afterAll, beforeAll, beforeEach, expect, test, vi } from "vitest";
import { createQstashQueue, type QueueBody } from "../../lib/adapters/queue";
import { createQueueRoutes } from "../../lib/core/queue-routes";
import { createLogger } from "../../lib/base/logger";
import { startQstashFake } from "../helpers/qstash-fake";

/*
 * The QStash stand-in the production smoke test relies on, checked against the production code on both
 * ends: our QStash queue adapter publishes through `@upstash/qstash`'s Client, and our worker route verifies
 * the deliveries with its Receiver. So a stand-in that drifted from what the SDK sends or checks fails here,
 * without PostgreSQL or a build.
 */

const TOKEN = "qstash-test-token";
const CURRENT_KEY = "sig_current_0123456789";
let fake: Awaited<ReturnType<typeof startQstashFake>>;
let worker: ServerType;
let origin: string;
const handled: { body: QueueBody; attempt: number }[] = [];
let failures = 0;
let failedAttempts = 0;

beforeAll(async () => {
  fake = await startQstashFake({ token: TOKEN, currentSigningKey: CURRENT_KEY, timeScale: 0.01 });
  const listening = await new Promise<{ server: ServerType; port: number }>((resolve) => {
    const server = serve({ fetch: (request) => routes.fetch(request), port: 0, hostname: "127.0.0.1" }, (info: AddressInfo) =>
      resolve({ server, port: info.port }),
    );
  });
  worker = listening.server;
  origin = `http://127.0.0.1:${listening.port}`;
  queue = createQstashQueue({ token: TOKEN, publicBaseUrl: origin, qstashUrl: fake.url, retries: 2 });
  queue.register("smoke", async (body, meta) => {
    if (failures > 0) {
      failures--;
      failedAttempts++;
      throw new Error("worker failed on purpose");
    }
    handled.push({ body, attempt: meta.attempt });
  });
  routes = new Hono().route(
    "/api/queue",
    createQueueRoutes(queue, { currentSigningKey: CURRENT_KEY, nextSigningKey: "sig_next_0123456789", publicBaseUrl: origin, logger: createLogger("silent") }),
  );
});

let queue: ReturnType<typeof createQstashQueue>;
let routes: Hono;

afterAll(async () => {
  await fake.close();
  await new Promise((resolve) => worker.close(resolve));
});

beforeEach(() => {
  handled.length = 0;
  failures = 0;
  failedAttempts = 0;
});

test("a publish from the SDK is delivered to the worker route with a signature its Receiver accepts", async () => {
  await queue.publish("smoke", { n: 1 });
  await fake.idle();
  expect(handled).toEqual([{ body: { n: 1 }, attempt: 1 }]);
  expect(fake.published.at(-1)).toMatchObject({ destination: `${origin}/api/queue/smoke`, retries: 2, headers: { "content-type": "application/json" } });
  expect(fake.deliveries.at(-1)).toMatchObject({ status: 200, attempt: 0 });
});

test("a delay holds the delivery back; the same deduplication id is published once", async () => {
  const published = Date.now();
  await queue.publish("smoke", { n: 2 }, { delaySeconds: 30, deduplicationId: "dedup-2" });
  await queue.publish("smoke", { n: 2 }, { delaySeconds: 30, deduplicationId: "dedup-2" });
  expect(fake.published.at(-1)?.notBefore).toBeGreaterThanOrEqual(published + 30_000);
  await vi.waitFor(() => expect(handled).toHaveLength(1), { timeout: 60_000, interval: 20 });
  await fake.idle();
  expect(handled).toEqual([{ body: { n: 2 }, attempt: 1 }]);
  expect(fake.deduplicated).toContain("dedup-2");
});

test("a failing worker is retried with the attempt count, up to the message's retries, then dead-lettered", async () => {
  failures = 1;
  await queue.publish("smoke", { n: 3 });
  await fake.idle();
  expect(handled).toEqual([{ body: { n: 3 }, attempt: 2 }]);
  expect(failedAttempts).toBe(1);

  failures = 10;
  await queue.publish("smoke", { n: 4 });
  await fake.idle();
  expect(failedAttempts).toBe(1 + 3);
  expect(fake.deadLetters.map((m) => m.body)).toEqual([JSON.stringify({ n: 4 })]);
});

test("a delivery signed with another key, or with no valid JWT, is refused by the worker route", async () => {
  const other = await startQstashFake({ token: TOKEN, currentSigningKey: "sig_someone_else_987654" });
  try {
    const client = createQstashQueue({ token: TOKEN, publicBaseUrl: origin, qstashUrl: other.url, retries: 0 });
    await client.publish("smoke", { n: 5 });
    await other.idle();
    expect(other.deliveries.map((d) => d.status)).toEqual([401]);
  } finally {
    await other.close();
  }
  expect(handled).toEqual([]);
  // A request that is not a JWT at all.
  const forged = await fetch(`${origin}/api/queue/other`, { method: "POST", headers: { "upstash-signature": "x.y.z" }, body: "{}" });
  expect(forged.status).toBe(401);
});
