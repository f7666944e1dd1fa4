import { Hono, type Context } from "hono";
import type { Config } from "../../core/config";
import type { CoreDeps } from "../../core/context";
import type { Providers } from "../../providers";
import { ingestPostmarkEvent, MessageInFlightError, PayloadError } from "./ingest";
import { basicAuthMatches, ipAllowed, parseAllowList, receiverCredentials } from "./receiver-auth";

/** Under @hono/node-server the Node request is in `c.env`; on Vercel (fetch handler) there is none. */
type ReceiverEnv = { Bindings: { incoming?: { socket?: { remoteAddress?: string } } } };

/** Postmark bodies are small; a Bounce with `Content` (the raw dump) is the largest. Vercel caps at 4.5 MB. */
const MAX_BODY_BYTES = 4.5 * 1024 * 1024;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function problem(c: Context<ReceiverEnv>, status: 400 | 401 | 404 | 413 | 500 | 503, code: string, message: string): Response {
  if (status === 401) c.header("WWW-Authenticate", 'Basic realm="postmark-webhook", charset="UTF-8"');
  return c.json({ error: { code, message, details: [] } }, status);
}

/**
 * The socket's peer on a Node server; behind a platform proxy (Vercel, which overwrites the header) the
 * first `X-Forwarded-For` entry.
 */
function clientAddress(c: Context<ReceiverEnv>): string | null {
  const socket = c.env?.incoming?.socket?.remoteAddress;
  if (socket) return socket;
  return c.req.header("x-forwarded-for")?.split(",")[0]?.trim() || null;
}

/**
 * `POST /api/postmark/webhook/{customer_id}` (recommended: one URL per customer's Postmark server) and
 * `POST /api/postmark/webhook` (attributes only through `Metadata.message_id`). Answers:
 * 200 stored / duplicate / ignored (unknown record type, unknown message, foreign stream), 400 malformed
 * JSON or a known record type without its fields, 401 wrong or missing credentials or an address outside
 * the allow-list (never 403, which would stop Postmark's retries, P2), 503 when the message's send outcome
 * is still being recorded (Postmark retries). Nothing is stored unless the answer is 200.
 */
export function createPostmarkWebhookRoutes(deps: Pick<CoreDeps, "db" | "clock" | "queue" | "logger" | "config">): Hono<ReceiverEnv> {
  const app = new Hono<ReceiverEnv>();
  const credentials = receiverCredentials(deps.config);
  const allowList = parseAllowList(deps.config.POSTMARK_WEBHOOK_ALLOWED_IPS);
  if (!credentials) deps.logger.warn("POSTMARK_WEBHOOK_USERNAME/PASSWORD are not set: the Postmark webhook receiver refuses every request");

  const receive = async (c: Context<ReceiverEnv>, customerId: string | null): Promise<Response> => {
    if (!credentials || !basicAuthMatches(c.req.header("authorization"), credentials)) {
      return problem(c, 401, "unauthorized", "Missing or wrong HTTP Basic credentials.");
    }
    if (allowList && !ipAllowed(allowList, clientAddress(c))) {
      deps.logger.warn("postmark webhook from an address outside the allow-list", { address: clientAddress(c) ?? "unknown" });
      return problem(c, 401, "unauthorized", "This address may not post provider events.");
    }
    if (customerId !== null && !UUID.test(customerId)) return problem(c, 404, "not_found", "No such webhook URL.");
    if (Number(c.req.header("content-length") ?? 0) > MAX_BODY_BYTES) return problem(c, 413, "bad_request", "Body too large.");
    const raw = await c.req.text();
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      return problem(c, 400, "bad_request", "The body is not valid JSON.");
    }
    try {
      const result = await ingestPostmarkEvent(deps, { customerId: customerId?.toLowerCase() ?? null }, body);
      if (result.outcome === "ignored") deps.logger.info("postmark event ignored", { record_type: result.record_type ?? "none", reason: result.reason });
      return c.json({ data: result }, 200);
    } catch (error) {
      if (error instanceof PayloadError) return problem(c, 400, "bad_request", error.message);
      if (error instanceof MessageInFlightError) {
        return problem(c, 503, "internal_error", "The message's send outcome is still being recorded; retry shortly.");
      }
      throw error;
    }
  };

  app.post("/webhook", (c) => receive(c, null));
  app.post("/webhook/:customerId", (c) => receive(c, c.req.param("customerId")));
  app.onError((error, c) => {
    deps.logger.error("postmark webhook failed", { error: String(error) });
    return problem(c, 500, "internal_error", "The event could not be stored; Postmark will retry.");
  });
  return app;
}

export const POSTMARK_WEBHOOK_PATH = "/api/postmark/webhook";

/**
 * Embedded mode: the Postmark simulator posts its webhooks to this deployment's receiver, with the
 * receiver's credentials, exactly as Postmark would. The simulator has one target for all its servers,
 * so it uses the bare path: every simulated event carries our message id in `Metadata`.
 */
export function pointSimulatorAtReceiver(providers: Pick<Providers, "postmarkSimulator">, config: Pick<Config, "POSTMARK_WEBHOOK_USERNAME" | "POSTMARK_WEBHOOK_PASSWORD">, origin: string): boolean {
  const simulator = providers.postmarkSimulator?.simulator;
  const credentials = receiverCredentials(config);
  if (!simulator || !credentials) return false;
  simulator.setWebhook({ url: `${origin.replace(/\/$/, "")}${POSTMARK_WEBHOOK_PATH}`, ...credentials });
  return true;
}
