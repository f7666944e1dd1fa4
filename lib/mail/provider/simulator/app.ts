import { Hono, type Context } from "hono";
import { z } from "zod";
import { accountRoutes } from "./account";
import { readBodyText } from "./body";
import { POSTMARK_ERRORS, SimulatorControlError } from "./errors";
import type { PostmarkError } from "./postmark-shapes";
import { droppedResponses, type SimulatorEnv } from "./env";
import { PostmarkSimulator, type ApiResult, type Authenticated, type PostmarkSimulatorOptions } from "./simulator";
import { BOUNCE_TYPE_NAMES } from "./test-addresses";

type SimulatorContext = Context<SimulatorEnv>;

/** Postmark's batch limit is 50 MB including attachments (batch docs). */
const MAX_SEND_BODY_BYTES = 50 * 1024 * 1024;
const JSON_CONTENT_TYPES = ["application/json", "text/json", "text/x-json"];

const FaultBody = z.object({
  mode: z.enum(["slow", "stall", "error500", "drop", "late", "none"]),
  count: z.number().int().positive().optional(),
  delay_ms: z.number().int().nonnegative().optional(),
  after_accept: z.boolean().optional(),
  path: z.enum(["/email", "/email/batch", "/email/bulk"]).optional(),
});
const SearchBody = z.object({ delay_ms: z.number().int().nonnegative().max(3_600_000) });
const LatencyBody = z.object({ delay_ms: z.number().int().nonnegative().max(600_000) });
const FreezeBody = z.object({
  duration_ms: z.number().int().nonnegative().max(3_600_000),
  drain_ms: z.number().int().nonnegative().max(60_000).optional(),
  on_next_send_to: z.string().startsWith("/email").optional(),
});
const ThrottleBody = z.object({
  rate: z.number().min(0).max(1),
  duration_ms: z.number().int().nonnegative().max(3_600_000),
  retry_after_seconds: z.number().int().nonnegative().max(3600).optional(),
  status: z.union([z.literal(429), z.literal(503)]).optional(),
  cut: z.boolean().optional(),
});
const RecipientBody = z.object({ recipient: z.string().optional() });
const EngagementBody = RecipientBody.extend({ platform: z.string().optional() });
const ClickBody = EngagementBody.extend({ url: z.url(), location: z.enum(["HTML", "Text"]).optional() });
const BounceBody = RecipientBody.extend({ type: z.enum(BOUNCE_TYPE_NAMES).optional() });
const WebhookBody = z.object({ url: z.url(), username: z.string().optional(), password: z.string().optional() }).nullable();
const ServerBody = z.object({
  webhook: WebhookBody.optional(),
  token: z.string().min(1),
  id: z.number().int().positive().optional(),
  name: z.string().optional(),
  deliveryType: z.enum(["Live", "Sandbox"]).optional(),
  streams: z.array(z.object({ id: z.string().min(1), type: z.enum(["Transactional", "Broadcasts"]) })).min(1),
});
const MessagesQuery = z.object({
  to: z.string().optional(),
  stream: z.string().optional(),
  tag: z.string().optional(),
  server_id: z.coerce.number().int().optional(),
  metadata_key: z.string().optional(),
  metadata_value: z.string().optional(),
  limit: z.coerce.number().int().positive().optional(),
  offset: z.coerce.number().int().nonnegative().optional(),
});

function isError(value: unknown): value is PostmarkError {
  return typeof value === "object" && value !== null && "ErrorCode" in value;
}

function respond<T>(c: SimulatorContext, result: ApiResult<T>): Response {
  return c.json(result.body, result.status);
}

/** Under Node: the caller closed its connection (or it was reset) before we answered. */
function callerGone(c: SimulatorContext): boolean {
  const socket = c.env?.incoming?.socket;
  return socket !== undefined && (socket.destroyed || socket.readableEnded || !socket.writable);
}

/** Destroys the socket without an answer; the caller sees a reset connection, as with a lost response. */
function drop(c: SimulatorContext): Response {
  c.env?.incoming?.socket.destroy();
  const response = new Response(null, { status: 502 });
  droppedResponses.add(response);
  return response;
}

/**
 * The parsed JSON body of a send or suppression call. Under Node the bytes are read from the request
 * itself (see ./body.ts: measurably cheaper on 18 MB batch bodies); through plain `fetch` (tests) with
 * `text()`.
 */
async function readJson(c: SimulatorContext): Promise<{ ok: true; value: unknown } | { ok: false; reason: "invalid" | "too_large" }> {
  const incoming = c.env?.incoming;
  try {
    const body = incoming ? await readBodyText(incoming, MAX_SEND_BODY_BYTES) : { ok: true as const, text: await c.req.text() };
    if (!body.ok) return body;
    return { ok: true, value: JSON.parse(body.text) };
  } catch {
    return { ok: false, reason: "invalid" };
  }
}

/** 413 past the size cap (as the header check answers), Postmark's invalid-JSON error otherwise. */
function unreadable(c: SimulatorContext, reason: "invalid" | "too_large"): Response {
  return reason === "too_large" ? c.text("Request Entity Too Large", 413) : c.json(POSTMARK_ERRORS.invalidJson, 422);
}

/** Control bodies may be empty (`POST …/open` with no recipient); anything present must match the schema. */
async function controlBody<T extends z.ZodType>(c: SimulatorContext, schema: T): Promise<z.infer<T>> {
  const text = await c.req.text();
  let value: unknown = {};
  if (text.trim() !== "") {
    try {
      value = JSON.parse(text);
    } catch {
      throw new SimulatorControlError(422, "The body is not valid JSON.");
    }
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new SimulatorControlError(422, z.prettifyError(parsed.error));
  return parsed.data;
}

/**
 * Postmark's API (the subset our service uses) plus the simulator's control endpoints under `/__sim`.
 * Control endpoints need no token: the simulator is a local development tool bound to loopback.
 */
function createSimulatorApp(simulator: PostmarkSimulator): Hono<SimulatorEnv> {
  const app = new Hono<SimulatorEnv>();

  async function send(c: SimulatorContext, handle: (auth: Authenticated, body: unknown) => ApiResult<unknown>): Promise<Response> {
    const auth = simulator.authenticate(c.req.header("x-postmark-server-token"));
    if (isError(auth)) return c.json(auth, 401);
    const contentType = c.req.header("content-type")?.split(";")[0].trim().toLowerCase() ?? "";
    if (!JSON_CONTENT_TYPES.includes(contentType)) return c.json(POSTMARK_ERRORS.jsonRequired, 422);
    // Checked on the header only: hono's bodyLimit touches `c.req.raw.body`, which moves @hono/node-server
    // off its fast path for `text()` and costs ~30 ms per 16 MB batch.
    if (Number(c.req.header("content-length") ?? 0) > MAX_SEND_BODY_BYTES) return c.text("Request Entity Too Large", 413);
    const throttled = simulator.takeThrottle();
    if (throttled) {
      // A gateway that refuses and closes the connection before the upload ends: the caller gets no answer.
      if (throttled.cut) return drop(c);
      if (throttled.retryAfterSeconds !== null) c.header("Retry-After", String(throttled.retryAfterSeconds));
      if (throttled.status === 503) return c.text("Service Unavailable", 503);
      return c.json(POSTMARK_ERRORS.rateLimited, 429);
    }
    const fault = simulator.takeFault(c.req.path);
    if (fault?.mode === "error500") return c.text("Internal Server Error", 500);
    if (fault?.mode === "drop" && !fault.afterAccept) return drop(c);
    // Held after the body arrived: a `slow` provider has the mail even if its caller dies meanwhile.
    const body = await readJson(c);
    simulator.noteRequestBytes(Number(c.req.header("content-length") ?? 0));
    if (fault?.mode === "late") {
      // The caller gets no answer; the call is kept and taken in later (`takeInLateCalls`).
      if (body.ok) simulator.keepLate(() => void handle(auth, body.value));
      return drop(c);
    }
    if (simulator.latencyMs > 0) await simulator.delay(simulator.latencyMs);
    // A frozen provider holds the request, then handles it even if its caller has gone meanwhile.
    await simulator.untilThawed(c.req.path);
    if (fault?.mode === "slow" && !fault.afterAccept) await simulator.hold(fault.delayMs);
    if (fault?.mode === "stall") {
      // Read first, so the socket keeps reading and notices when the caller goes away.
      await simulator.hold(fault.delayMs);
      // The caller died while the request hung: as if it never reached the provider.
      if (callerGone(c)) return drop(c);
    }
    if (!body.ok) return unreadable(c, body.reason);
    const result = handle(auth, body.value);
    if (fault?.mode === "drop") return drop(c);
    if (fault?.mode === "slow" && fault.afterAccept) await simulator.hold(fault.delayMs);
    return respond(c, result);
  }

  app.post("/email", (c) => send(c, (auth, body) => simulator.sendEmail(auth, body)));
  app.post("/email/batch", (c) => send(c, (auth, body) => simulator.sendBatch(auth, body)));
  app.post("/email/bulk", (c) => send(c, (auth, body) => simulator.sendBulk(auth, body)));
  app.get("/email/bulk/:id", (c) => {
    const server = simulator.authenticateServer(c.req.header("x-postmark-server-token"));
    if (isError(server)) return c.json(server, 401);
    const result = simulator.bulkStatus(server, c.req.param("id"));
    return c.json(result.body, result.status);
  });

  async function suppressions(c: SimulatorContext, change: "create" | "delete"): Promise<Response> {
    const server = simulator.authenticateServer(c.req.header("x-postmark-server-token"));
    if (isError(server)) return c.json(server, 401);
    const body = await readJson(c);
    if (!body.ok) return unreadable(c, body.reason);
    const stream = c.req.param("stream") ?? "";
    return respond(
      c,
      change === "create" ? simulator.createSuppressions(server, stream, body.value) : simulator.deleteSuppressions(server, stream, body.value),
    );
  }

  app.get("/messages/outbound", (c) => {
    const server = simulator.authenticateServer(c.req.header("x-postmark-server-token"));
    if (isError(server)) return c.json(server, 401);
    return respond(c, simulator.searchOutbound(server, c.req.query()));
  });

  app.get("/message-streams/:stream/suppressions/dump", (c) => {
    const server = simulator.authenticateServer(c.req.header("x-postmark-server-token"));
    if (isError(server)) return c.json(server, 401);
    return respond(c, simulator.dumpSuppressions(server, c.req.param("stream"), c.req.query()));
  });
  app.post("/message-streams/:stream/suppressions", (c) => suppressions(c, "create"));
  app.post("/message-streams/:stream/suppressions/delete", (c) => suppressions(c, "delete"));

  app.get("/__sim/messages", (c) => {
    const query = MessagesQuery.safeParse(c.req.query());
    if (!query.success) throw new SimulatorControlError(422, z.prettifyError(query.error));
    const { to, stream, tag, server_id, metadata_key, metadata_value, limit, offset } = query.data;
    const page = simulator.messages({ to, stream, tag, serverId: server_id, metadataKey: metadata_key, metadataValue: metadata_value, limit, offset });
    return c.json({ total_count: page.total, messages: page.messages });
  });
  app.get("/__sim/messages/:id", (c) => c.json(simulator.message(c.req.param("id"))));
  app.post("/__sim/messages/:id/open", async (c) => c.json(simulator.open(c.req.param("id"), await controlBody(c, EngagementBody))));
  app.post("/__sim/messages/:id/click", async (c) => c.json(simulator.click(c.req.param("id"), await controlBody(c, ClickBody))));
  app.post("/__sim/messages/:id/unsubscribe", async (c) => c.json(simulator.unsubscribe(c.req.param("id"), await controlBody(c, RecipientBody))));
  app.post("/__sim/messages/:id/bounce", async (c) => c.json(simulator.bounce(c.req.param("id"), await controlBody(c, BounceBody))));
  app.post("/__sim/messages/:id/complain", async (c) => c.json(simulator.complain(c.req.param("id"), await controlBody(c, RecipientBody))));

  app.post("/__sim/servers", async (c) => {
    const server = simulator.addServer(await controlBody(c, ServerBody));
    return c.json({ ServerID: server.id, name: server.name, deliveryType: server.deliveryType, streams: [...server.streams.values()] });
  });
  app.get("/__sim/stats", (c) => c.json(simulator.stats()));
  app.post("/__sim/reset", (c) => {
    simulator.reset();
    return c.json({ reset: true });
  });
  app.post("/__sim/faults", async (c) => {
    const fault = await controlBody(c, FaultBody);
    simulator.setFaults({ mode: fault.mode, count: fault.count, delayMs: fault.delay_ms, afterAccept: fault.after_accept, path: fault.path });
    return c.json({ mode: fault.mode, count: fault.mode === "none" ? 0 : (fault.count ?? 1) });
  });
  app.post("/__sim/late/take-in", (c) => c.json({ taken_in: simulator.takeInLateCalls() }));
  app.post("/__sim/search", async (c) => {
    const { delay_ms } = await controlBody(c, SearchBody);
    simulator.setSearchDelay(delay_ms);
    return c.json({ delay_ms });
  });
  app.post("/__sim/latency", async (c) => {
    const { delay_ms } = await controlBody(c, LatencyBody);
    simulator.setLatency(delay_ms);
    return c.json({ delay_ms });
  });
  app.post("/__sim/freeze", async (c) => {
    const body = await controlBody(c, FreezeBody);
    simulator.setFreeze({ durationMs: body.duration_ms, drainMs: body.drain_ms, onNextSendTo: body.on_next_send_to });
    return c.json(body);
  });
  app.post("/__sim/throttle", async (c) => {
    const body = await controlBody(c, ThrottleBody);
    simulator.setThrottle({ rate: body.rate, durationMs: body.duration_ms, retryAfterSeconds: body.retry_after_seconds, status: body.status, cut: body.cut });
    return c.json(body);
  });
  app.get("/__sim/webhooks", (c) => {
    const limit = Number(c.req.query("limit") ?? 100);
    return c.json({ deliveries: simulator.webhookDeliveries(Number.isInteger(limit) && limit > 0 ? limit : 100) });
  });
  app.put("/__sim/webhook", async (c) => {
    const target = await controlBody(c, WebhookBody);
    simulator.setWebhook(target);
    return c.json({ webhook: target ? { url: target.url } : null });
  });

  app.route("/", accountRoutes(simulator.account));

  app.notFound((c) => c.json({ Message: `No endpoint ${c.req.method} ${c.req.path} in the Postmark simulator.` }, 404));
  app.onError((error, c) => {
    if (error instanceof SimulatorControlError) return c.json({ error: error.message }, error.status);
    return c.json({ error: error instanceof Error ? error.message : String(error) }, 500);
  });
  return app;
}

export function createPostmarkSimulator(options: PostmarkSimulatorOptions = {}): PostmarkSimulator {
  return new PostmarkSimulator(options, createSimulatorApp);
}
