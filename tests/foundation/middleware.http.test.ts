import { z } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createAdsApp } from "../../lib/ads/app";
import { createUpstashIdempotencyStore } from "../../lib/adapters/idempotency";
import { ManualClock } from "../../lib/base/clock";
import type { RuntimeDeps } from "../../lib/runtime";
import { envelope, errorResponses } from "../../lib/core/openapi";
import { serviceRoute } from "../../lib/core/route";
import { createMailApp } from "../../lib/mail/app";
import { createHarness, describeResponse, type Harness } from "../helpers/harness";
import { startUpstashFake } from "../helpers/upstash-fake";

/**
 * The route-level rules (scope, access switches, idempotency, body checks) exercised through real
 * service apps with one probe route per access kind, registered exactly as product routes are.
 */
let h: Harness;
let executions = 0;
let gate: Promise<void> | null = null;
const clock = new ManualClock("2026-03-01T12:00:00Z");

const Echo = z.object({ text: z.string().min(1).max(20), count: z.number().int().optional() }).openapi("Echo");

function probeApp(service: "mail" | "ads", deps: RuntimeDeps = h.deps) {
  // The runtime's service deps with this test's core (the idempotency store under test).
  const app = service === "mail" ? createMailApp({ ...h.mailDeps, ...deps }) : createAdsApp({ ...h.adsDeps, ...deps });
  for (const [access, path] of [
    ["write", "/v1/probe/write"],
    ["send", "/v1/probe/send"],
    ["read", "/v1/probe/read"],
  ] as const) {
    const method = access === "read" ? "get" : "post";
    app.openapi(
      serviceRoute(deps, access, {
        method,
        path,
        ...(method === "post" ? { request: { body: { required: true, content: { "application/json": { schema: Echo } } } } } : {}),
        responses: {
          200: { description: "ok", content: { "application/json": { schema: envelope(z.object({ n: z.number() })) } } },
          ...errorResponses(service, [400]),
        },
      }),
      async (c) => {
        executions += 1;
        const n = executions;
        if (gate) await gate;
        if (c.req.header("x-fail") === "500") throw new Error("boom");
        if (c.req.header("x-log")) {
          // A line after a database round trip and a timer: the request id crosses both.
          await deps.db.execute(sql`select 1`);
          await new Promise((resolve) => setTimeout(resolve, 1));
          deps.logger.info("probe handled", { probe: c.req.header("x-log") });
        }
        return c.json({ data: { n }, request_id: c.get("requestId") }, 200);
      },
    );
  }
  return app;
}

async function call(app: ReturnType<typeof probeApp>, method: string, path: string, key: string, body?: unknown, headers: Record<string, string> = {}) {
  const r = await app.request(path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, headers: r.headers, text, json: text ? JSON.parse(text) : null };
}

const probeAppWith = probeApp;

beforeAll(async () => {
  h = await createHarness({ clock });
});
afterAll(async () => {
  await h.close();
  await upstash?.close();
});

describe("scope and access switches", () => {
  test("a reporting key may read but gets 403 on writes and sends", async () => {
    const c = await h.customer();
    const app = probeApp("mail");
    expect((await call(app, "GET", "/v1/probe/read", c.mailReporting)).status).toBe(200);
    for (const path of ["/v1/probe/write", "/v1/probe/send"]) {
      const r = await call(app, "POST", path, c.mailReporting, { text: "hi" });
      expect(r.status, describeResponse(r)).toBe(403);
      expect(r.json.error.code).toBe("forbidden");
    }
  });

  test("mail sending_blocked: sends 403, writes and reads still work", async () => {
    const c = await h.customer();
    const app = probeApp("mail");
    await h.admin("PATCH", `/v1/customers/${c.id}`, { mail: { sending_blocked: true } });
    const send = await call(app, "POST", "/v1/probe/send", c.mailFull, { text: "hi" });
    expect(send.status, describeResponse(send)).toBe(403);
    expect(send.json.error.message).toMatch(/blocked/);
    expect((await call(app, "POST", "/v1/probe/write", c.mailFull, { text: "hi" })).status).toBe(200);
    expect((await call(app, "GET", "/v1/probe/read", c.mailReporting)).status).toBe(200);
    await h.admin("PATCH", `/v1/customers/${c.id}`, { mail: { sending_blocked: false } });
    expect((await call(app, "POST", "/v1/probe/send", c.mailFull, { text: "hi" })).status).toBe(200);
  });

  test.each([
    ["deactivated", 200],
    ["overdue", 200],
    ["checkout_open", 402],
    ["ended", 402],
  ])("ads account %s: writes 402 payment_required, reads %i", async (state, readStatus) => {
    const c = await h.customer();
    const app = probeApp("ads");
    await h.admin("PATCH", `/v1/customers/${c.id}`, { ads: { account_state: state } });
    const write = await call(app, "POST", "/v1/probe/write", c.adsFull, { text: "hi" });
    expect(write.status, describeResponse(write)).toBe(402);
    expect(write.json.error.code).toBe("payment_required");
    expect((await call(app, "GET", "/v1/probe/read", c.adsFull)).status).toBe(readStatus);
    expect((await call(app, "GET", "/v1/health", c.adsFull)).status).toBe(200);
  });
});

describe("request bodies", () => {
  test("malformed JSON is 400", async () => {
    const c = await h.customer();
    const r = await call(probeApp("mail"), "POST", "/v1/probe/write", c.mailFull, "{not json");
    expect(r.status, describeResponse(r)).toBe(400);
    expect(r.json.error.code).toBe("bad_request");
    expect(r.json.error.message).toMatch(/JSON/);
  });

  test("a wrong content type is 400 naming it", async () => {
    const c = await h.customer();
    const r = await call(probeApp("mail"), "POST", "/v1/probe/write", c.mailFull, undefined, { "content-type": "text/plain" });
    const withBody = await probeApp("mail").request("/v1/probe/write", {
      method: "POST",
      headers: { authorization: `Bearer ${c.mailFull}`, "content-type": "text/plain" },
      body: "text=hi",
    });
    expect(withBody.status).toBe(400);
    expect(await withBody.text()).toContain("Content-Type must be application/json");
    expect(r.status).toBe(400);
  });

  test("an oversized body is 413 payload_too_large with Connection: close and never reaches the handler", async () => {
    const c = await h.customer();
    const before = executions;
    const r = await call(probeApp("mail"), "POST", "/v1/probe/write", c.mailFull, { text: "x".repeat(5 * 1024 * 1024) });
    expect(r.status, describeResponse(r)).toBe(413);
    expect(r.json.error).toMatchObject({ code: "payload_too_large", details: [] });
    expect(r.json.error.message).toMatch(/exceeds/);
    expect(r.headers.get("connection")).toBe("close");
    expect(executions).toBe(before);
  });

  test("missing required fields are 400 with details; invalid ones 422 (mail path/message, ads field/issue)", async () => {
    const c = await h.customer();
    const missing = await call(probeApp("mail"), "POST", "/v1/probe/write", c.mailFull, {});
    expect(missing.status, describeResponse(missing)).toBe(400);
    expect(missing.json.error.details).toEqual([expect.objectContaining({ path: "text" })]);
    const invalid = await call(probeApp("mail"), "POST", "/v1/probe/write", c.mailFull, { text: "" });
    expect(invalid.status, describeResponse(invalid)).toBe(422);
    expect(invalid.json.error.code).toBe("validation_error");
    expect(invalid.json.error.details[0]).toEqual({ path: "text", message: expect.any(String) });
    const ads = await call(probeApp("ads"), "POST", "/v1/probe/write", c.adsFull, { text: "x".repeat(21) });
    expect(ads.status, describeResponse(ads)).toBe(422);
    expect(ads.json.error.details[0]).toEqual({ field: "text", issue: expect.any(String) });
  });

  test("an unexpected failure is an opaque 500 with request_id, logged without secrets", async () => {
    const c = await h.customer();
    const r = await call(probeApp("mail"), "POST", "/v1/probe/write", c.mailFull, { text: "hi" }, { "x-fail": "500" });
    expect(r.status, describeResponse(r)).toBe(500);
    expect(r.json.error.code).toBe("internal_error");
    expect(r.json.error.message).not.toContain("boom");
    expect(r.json.request_id).toBeTruthy();
    expect(h.logLines.some((l) => l.includes("boom") && l.includes(r.json.request_id))).toBe(true);
    expect(h.logLines.join("\n")).not.toContain(c.mailFull);
  });
});

describe("logs", () => {
  test("a line written inside a handler carries the request id its response's X-Request-Id names, with tracing off", async () => {
    const c = await h.customer();
    // Two requests at once: each line names its own request, not the other's.
    const [first, second] = await Promise.all(
      ["one", "two"].map((probe) => call(probeApp("mail"), "POST", "/v1/probe/write", c.mailFull, { text: "hi" }, { "x-log": probe })),
    );
    for (const [probe, r] of [
      ["one", first],
      ["two", second],
    ] as const) {
      expect(r?.status, r && describeResponse(r)).toBe(200);
      const requestId = r?.headers.get("x-request-id");
      expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
      const line = h.logLines.map((l) => JSON.parse(l)).find((l) => l.message === "probe handled" && l.probe === probe);
      expect(line, h.logLines.join("\n")).toBeDefined();
      expect(line.request_id).toBe(requestId);
      // Tracing is off in this file: no trace ids to carry.
      expect(line.trace_id).toBeUndefined();
    }
    // An incoming X-Request-Id is the one the lines carry.
    const named = await call(
      probeApp("mail"),
      "POST",
      "/v1/probe/write",
      c.mailFull,
      { text: "hi" },
      { "x-log": "three", "x-request-id": "req-from-caller-42" },
    );
    expect(named.headers.get("x-request-id")).toBe("req-from-caller-42");
    expect(h.logLines.map((l) => JSON.parse(l)).find((l) => l.probe === "three")?.request_id).toBe("req-from-caller-42");
    // Outside a request a line carries none.
    h.deps.logger.info("outside any request");
    expect(JSON.parse(h.logLines.at(-1) ?? "{}")).not.toHaveProperty("request_id");
  });
});

let upstash: Awaited<ReturnType<typeof startUpstashFake>>;
const stores: [string, () => RuntimeDeps][] = [
  ["postgres", () => h.deps],
  ["upstash", () => ({ ...h.deps, idempotency: createUpstashIdempotencyStore({ url: upstash.url, token: "t" }) })],
];

describe.each(stores)("idempotency (%s store)", (_name, depsOf) => {
  beforeAll(async () => {
    upstash ??= await startUpstashFake({ now: () => clock.now().getTime() });
  });
  const probeApp = (service: "mail" | "ads") => probeAppWith(service, depsOf());

  test("a replay returns the same status and body with Idempotent-Replayed, without executing again", async () => {
    const c = await h.customer();
    const app = probeApp("mail");
    const first = await call(app, "POST", "/v1/probe/write", c.mailFull, { text: "once" }, { "idempotency-key": `${_name}-k-1` });
    const before = executions;
    const again = await call(app, "POST", "/v1/probe/write", c.mailFull, { text: "once" }, { "idempotency-key": `"${_name}-k-1"` });
    expect(again.status).toBe(first.status);
    expect(again.text).toBe(first.text);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(executions).toBe(before);
  });

  test("the same key with another body is 409 idempotency_key_reused", async () => {
    const c = await h.customer();
    const app = probeApp("mail");
    await call(app, "POST", "/v1/probe/write", c.mailFull, { text: "a" }, { "idempotency-key": `${_name}-k-2` });
    const r = await call(app, "POST", "/v1/probe/write", c.mailFull, { text: "b" }, { "idempotency-key": `${_name}-k-2` });
    expect(r.status, describeResponse(r)).toBe(409);
    expect(r.json.error.details).toEqual([{ path: "reason", message: "idempotency_key_reused" }]);
  });

  test("two concurrent requests with one key: exactly one executes, the other is 409 in_use with Retry-After", async () => {
    const c = await h.customer();
    const app = probeApp("mail");
    let release: () => void = () => {};
    gate = new Promise((resolve) => (release = resolve));
    const before = executions;
    const firstPromise = call(app, "POST", "/v1/probe/write", c.mailFull, { text: "race" }, { "idempotency-key": `${_name}-k-3` });
    while (executions === before) await new Promise((r) => setTimeout(r, 5));
    const second = await call(app, "POST", "/v1/probe/write", c.mailFull, { text: "race" }, { "idempotency-key": `${_name}-k-3` });
    release();
    gate = null;
    const first = await firstPromise;
    expect(first.status).toBe(200);
    expect(second.status, describeResponse(second)).toBe(409);
    expect(second.json.error.details).toEqual([{ path: "reason", message: "idempotency_key_in_use" }]);
    expect(second.headers.get("retry-after")).toBe("1");
    expect(executions - before).toBe(1);
  });

  test("keys are scoped per customer", async () => {
    const a = await h.customer();
    const b = await h.customer();
    const app = probeApp("mail");
    const ra = await call(app, "POST", "/v1/probe/write", a.mailFull, { text: "x" }, { "idempotency-key": "shared" });
    const rb = await call(app, "POST", "/v1/probe/write", b.mailFull, { text: "x" }, { "idempotency-key": "shared" });
    expect(rb.headers.get("idempotent-replayed")).toBeNull();
    expect(rb.json.data.n).not.toBe(ra.json.data.n);
  });

  test("records expire after 24 hours", async () => {
    const c = await h.customer();
    const app = probeApp("mail");
    const first = await call(app, "POST", "/v1/probe/write", c.mailFull, { text: "t" }, { "idempotency-key": `${_name}-k-exp` });
    clock.advance(23 * 3600 * 1000);
    expect(
      (await call(app, "POST", "/v1/probe/write", c.mailFull, { text: "t" }, { "idempotency-key": `${_name}-k-exp` })).headers.get("idempotent-replayed"),
    ).toBe("true");
    clock.advance(2 * 3600 * 1000);
    const later = await call(app, "POST", "/v1/probe/write", c.mailFull, { text: "t" }, { "idempotency-key": `${_name}-k-exp` });
    expect(later.headers.get("idempotent-replayed")).toBeNull();
    expect(later.json.data.n).not.toBe(first.json.data.n);
  });

  test("a plain 500 is not kept: the retry executes", async () => {
    const c = await h.customer();
    const app = probeApp("mail");
    const failed = await call(app, "POST", "/v1/probe/write", c.mailFull, { text: "f" }, { "idempotency-key": `${_name}-k-500`, "x-fail": "500" });
    expect(failed.status).toBe(500);
    const retry = await call(app, "POST", "/v1/probe/write", c.mailFull, { text: "f" }, { "idempotency-key": `${_name}-k-500` });
    expect(retry.status, describeResponse(retry)).toBe(200);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
  });

  test("an invalid key is 400", async () => {
    const c = await h.customer();
    const r = await call(probeApp("mail"), "POST", "/v1/probe/write", c.mailFull, { text: "f" }, { "idempotency-key": "a".repeat(300) });
    expect(r.status, describeResponse(r)).toBe(400);
  });
});
