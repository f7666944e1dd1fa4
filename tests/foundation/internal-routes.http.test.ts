import { serve, type ServerType } from "@hono/node-server";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { handler as internalFunction } from "../../lib/functions/internal";
import { handler as mailFunction } from "../../lib/functions/mail";
import { createHarness, describeResponse, type Harness, type ErrorEnvelope } from "../helpers/harness";

let h: Harness;
let server: ServerType;
let origin: string;

beforeAll(async () => {
  h = await createHarness({ env: { CRON_SECRET: "cron-secret-for-the-internal-routes-test" } });
  const listening = await new Promise<{ server: ServerType; port: number }>((resolve) => {
    const s = serve({ fetch: h.root.fetch, port: 0, hostname: "127.0.0.1" }, (info: AddressInfo) => resolve({ server: s, port: info.port }));
  });
  server = listening.server;
  origin = `http://127.0.0.1:${listening.port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await h.close();
});

/** The common envelope: `{ error: { code, message, details: [] }, request_id }`, the id also in `X-Request-Id`. */
function expectEnvelope(r: { status: number; text: string; headers: Headers; json: ErrorEnvelope }, status: number, code: string) {
  expect(r.status, describeResponse(r)).toBe(status);
  expect(r.json.error, describeResponse(r)).toMatchObject({ code, details: [] });
  expect(typeof r.json.error.message).toBe("string");
  expect(r.json.request_id).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
  expect(r.headers.get("x-request-id")).toBe(r.json.request_id);
}

describe("/api/* answers in the common envelope, with a request id and the status of its code", () => {
  test("an unknown internal path is a 404 not_found", async () => {
    expectEnvelope(await h.call("POST", "/api/nothing-here"), 404, "not_found");
    expectEnvelope(await h.call("GET", "/api/cron"), 404, "not_found");
  });

  test("a cron call without the secret is a 401 that keeps the caller's X-Request-Id; an unknown job a 404", async () => {
    const r = await h.call<ErrorEnvelope>("GET", "/api/cron/idempotency-cleanup", { headers: { "x-request-id": "vercel-cron-run-1" } });
    expectEnvelope(r, 401, "unauthorized");
    expect(r.json.request_id).toBe("vercel-cron-run-1");
    const unknown = await h.call<ErrorEnvelope>("GET", "/api/cron/no-such-job", {
      headers: { authorization: "Bearer cron-secret-for-the-internal-routes-test" },
    });
    expectEnvelope(unknown, 404, "not_found");
  });

  test("a queue call without a signature is a 401", async () => {
    expectEnvelope(await h.call("POST", "/api/queue/send-batch", { body: {} }), 401, "unauthorized");
  });

  test("the platform webhook: failed verification 403, unsigned 401, a body over its cap 413 payload_too_large", async () => {
    expectEnvelope(await h.call("GET", "/api/platform/webhook?hub.mode=subscribe&hub.verify_token=wrong&hub.challenge=1"), 403, "forbidden");
    expectEnvelope(await h.call("POST", "/api/platform/webhook", { body: { object: "ad_account", entry: [] } }), 401, "unauthorized");
    // Over real HTTP, so the request carries its Content-Length as the platform's would.
    const response = await fetch(`${origin}/api/platform/webhook`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-hub-signature-256": `sha256=${"0".repeat(64)}` },
      body: JSON.stringify({ object: "ad_account", padding: "x".repeat(1024 * 1024 + 1) }),
    });
    const text = await response.text();
    expectEnvelope({ status: response.status, text, headers: response.headers, json: JSON.parse(text) }, 413, "payload_too_large");
  });

  test("the Postmark receiver: no credentials 401 with a Basic challenge; the shared URL 404", async () => {
    const r = await h.call<ErrorEnvelope>("POST", `/api/postmark/webhook/${crypto.randomUUID()}`, { body: { RecordType: "Delivery" } });
    expectEnvelope(r, 401, "unauthorized");
    expect(r.headers.get("www-authenticate")).toMatch(/^Basic /);
    expectEnvelope(await h.call("POST", "/api/postmark/webhook", { body: {} }), 404, "not_found");
  });

  test("a Vercel function asked for another group's path answers 404 in that group's envelope, without starting the runtime", async () => {
    for (const [handler, path] of [
      [internalFunction, "/mail/v1/health"],
      [mailFunction, "/api/cron/x"],
    ] as const) {
      const response = await handler(new Request(`http://localhost${path}`));
      const text = await response.text();
      expectEnvelope({ status: response.status, text, headers: response.headers, json: JSON.parse(text) }, 404, "not_found");
    }
  });
});
