import { Hono, type Context } from "hono";
import { clientAddress } from "../../core/client-address";
import type { CoreDeps } from "../../core/context";
import { jsonNestsDeeperThan, MAX_JSON_DEPTH, withoutNul } from "../../core/input-hygiene";
import { ingestPostmarkEvent, MessageInFlightError, PayloadError } from "./ingest";
import { ipAllowed, parseAllowList } from "./receiver-auth";
import { webhookAuthorized } from "./receiver-credentials";

/** Postmark bodies are small; a Bounce with `Content` (the raw dump) is the largest. Vercel caps at 4.5 MB. */
const MAX_BODY_BYTES = 4.5 * 1024 * 1024;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function problem(c: Context, status: 400 | 401 | 404 | 413 | 500 | 503, code: string, message: string): Response {
  if (status === 401) c.header("WWW-Authenticate", 'Basic realm="postmark-webhook", charset="UTF-8"');
  return c.json({ error: { code, message, details: [] } }, status);
}

/**
 * `POST /api/postmark/webhook/{customer_id}`: one URL per customer (one per customer's Postmark server),
 * with that customer's own HTTP Basic credentials; another customer's credentials answer 401. Events are
 * attributed to the customer of the URL only: by our message id in `Metadata`, else by Postmark's
 * `MessageID` stored at send time; suppression changes without either still belong to the URL's customer.
 * There is no shared URL: `POST /api/postmark/webhook` answers 404 and changes nothing.
 *
 * Answers: 200 stored / duplicate / ignored (unknown record type, unknown message, another customer's
 * message, foreign stream), 400 malformed JSON or a known record type without its fields, 401 wrong or
 * missing credentials or an address outside the allow-list (never 403, which would stop Postmark's
 * retries, P2), 503 when the message's send outcome is still being recorded (Postmark retries). Nothing is
 * stored unless the answer is 200. NUL characters are dropped from the body rather than refused: a refusal
 * would make Postmark retry the event forever.
 */
export function createPostmarkWebhookRoutes(deps: Pick<CoreDeps, "db" | "clock" | "queue" | "logger" | "config" | "secrets">): Hono {
  const app = new Hono();
  const allowList = parseAllowList(deps.config.POSTMARK_WEBHOOK_ALLOWED_IPS);

  const receive = async (c: Context, customerId: string): Promise<Response> => {
    const customer = UUID.test(customerId) ? customerId.toLowerCase() : null;
    if (!customer || !(await webhookAuthorized(deps, customer, c.req.header("authorization")))) {
      return problem(c, 401, "unauthorized", "Missing or wrong HTTP Basic credentials for this webhook URL.");
    }
    if (allowList && !ipAllowed(allowList, clientAddress(c))) {
      deps.logger.warn("postmark webhook from an address outside the allow-list", { client_address: clientAddress(c) ?? "unknown" });
      return problem(c, 401, "unauthorized", "This address may not post provider events.");
    }
    if (Number(c.req.header("content-length") ?? 0) > MAX_BODY_BYTES) return problem(c, 413, "bad_request", "Body too large.");
    const raw = await c.req.text();
    if (jsonNestsDeeperThan(raw, MAX_JSON_DEPTH)) return problem(c, 400, "bad_request", `JSON may nest arrays and objects at most ${MAX_JSON_DEPTH} levels deep.`);
    let body: unknown;
    try {
      body = withoutNul(JSON.parse(raw));
    } catch {
      return problem(c, 400, "bad_request", "The body is not valid JSON.");
    }
    try {
      const result = await ingestPostmarkEvent(deps, { customerId: customer }, body);
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

  app.post("/webhook", (c) => problem(c, 404, "not_found", "Use the customer's own webhook URL, /api/postmark/webhook/{customer_id} (GET /admin/v1/mail/postmark-webhook shows it)."));
  app.post("/webhook/:customerId", (c) => receive(c, c.req.param("customerId")));
  app.onError((error, c) => {
    deps.logger.error("postmark webhook failed", { error: String(error) });
    return problem(c, 500, "internal_error", "The event could not be stored; Postmark will retry.");
  });
  return app;
}

export const POSTMARK_WEBHOOK_PATH = "/api/postmark/webhook";

/** The receiver URL of one customer, without credentials. */
export function postmarkWebhookUrl(origin: string, customerId: string): string {
  return `${origin.replace(/\/$/, "")}${POSTMARK_WEBHOOK_PATH}/${customerId}`;
}
