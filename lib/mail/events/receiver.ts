import { Hono, type Context } from "hono";
import { handleError } from "../../core/app";
import { MAX_JSON_BODY_BYTES } from "../../core/body-limit";
import { clientAddress } from "../../core/client-address";
import type { AppEnv, CoreDeps } from "../../core/context";
import { ApiError, BadRequestError } from "../../core/errors";
import { findFlaw, jsonNestsDeeperThan, MAX_JSON_DEPTH, sanitisedJson } from "../../core/input-hygiene";
import { receivedText } from "../../core/strict-text";
import { ingestPostmarkEvent, MessageInFlightError, PayloadError } from "./ingest";
import { ipAllowed, parseAllowList } from "./receiver-auth";
import { webhookAuthorized } from "./receiver-credentials";

/**
 * Postmark bodies are small; a Bounce with `Content` (the raw dump) is the largest. Vercel caps at 4.5 MB.
 * Enforced by the internal app before the credentials are checked (`createInternalApp`).
 */
export const POSTMARK_WEBHOOK_MAX_BODY_BYTES = MAX_JSON_BODY_BYTES;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function unauthorized(message: string): ApiError {
  return new ApiError("unauthorized", message, { headers: { "WWW-Authenticate": 'Basic realm="postmark-webhook", charset="UTF-8"' } });
}

/**
 * `POST /api/postmark/webhook/{customer_id}`: one URL per customer (one per customer's Postmark server),
 * with that customer's own HTTP Basic credentials; another customer's credentials answer 401. Events are
 * attributed to the customer of the URL only: by our message id in `Metadata`, else by Postmark's
 * `MessageID` stored at send time; suppression changes without either still belong to the URL's customer.
 * There is no shared URL: `POST /api/postmark/webhook` answers 404 and changes nothing.
 *
 * Answers: 200 stored / duplicate / ignored (unknown record type, unknown message, another customer's
 * message; an event on a stream the customer has not configured is stored like the others), 400 malformed JSON or a known record type without its fields, 401 wrong or
 * missing credentials or an address outside the allow-list (never 403, which would stop Postmark's
 * retries, P2), 503 when the message's send outcome is still being recorded (Postmark retries). Nothing is
 * stored unless the answer is 200. Bytes that are not UTF-8 and lone surrogates are replaced by U+FFFD and NUL
 * characters dropped rather than refused (a refusal would make Postmark retry the event forever), and the
 * replacement is logged as a warning naming the offset or the field.
 */
export function createPostmarkWebhookRoutes(deps: Pick<CoreDeps, "db" | "clock" | "queue" | "logger" | "config" | "secrets">): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const allowList = parseAllowList(deps.config.POSTMARK_WEBHOOK_ALLOWED_IPS);

  const receive = async (c: Context<AppEnv>, customerId: string): Promise<Response> => {
    const customer = UUID.test(customerId) ? customerId.toLowerCase() : null;
    if (!customer || !(await webhookAuthorized(deps, customer, c.req.header("authorization")))) {
      throw unauthorized("Missing or wrong HTTP Basic credentials for this webhook URL.");
    }
    if (allowList && !ipAllowed(allowList, clientAddress(c))) {
      deps.logger.warn("postmark webhook from an address outside the allow-list", { client_address: clientAddress(c) ?? "unknown" });
      throw unauthorized("This address may not post provider events.");
    }
    const { text: raw, replaced } = receivedText(new Uint8Array(await c.req.arrayBuffer()));
    if (jsonNestsDeeperThan(raw, MAX_JSON_DEPTH)) throw new BadRequestError(`JSON may nest arrays and objects at most ${MAX_JSON_DEPTH} levels deep.`);
    let body: unknown;
    try {
      const parsed: unknown = JSON.parse(raw);
      const flaw = findFlaw(parsed);
      if (replaced || flaw) {
        deps.logger.warn(
          "postmark webhook: text no column can hold was replaced (U+FFFD for bytes that are not UTF-8 and lone surrogates, NUL dropped); event accepted",
          {
            customer_id: customer,
            ...(replaced ? { invalid_utf8_offset: replaced.offset, invalid_utf8_bytes: replaced.bytes } : {}),
            ...(flaw ? { field: flaw.path, flaw: flaw.flaw } : {}),
          },
        );
      }
      body = sanitisedJson(parsed);
    } catch {
      throw new BadRequestError("The body is not valid JSON.");
    }
    try {
      const result = await ingestPostmarkEvent(deps, { customerId: customer }, body);
      if (result.outcome === "ignored") deps.logger.info("postmark event ignored", { record_type: result.record_type ?? "none", reason: result.reason });
      return c.json({ data: result }, 200);
    } catch (error) {
      if (error instanceof PayloadError) throw new BadRequestError(error.message);
      if (error instanceof MessageInFlightError) {
        throw new ApiError("service_unavailable", "The message's send outcome is still being recorded; retry shortly.");
      }
      throw error;
    }
  };

  app.post("/webhook", () => {
    throw new ApiError(
      "not_found",
      "Use the customer's own webhook URL, /api/postmark/webhook/{customer_id} (the operator reads it with GET /admin/v1/customers/{customer_id}/mail/postmark-webhook).",
    );
  });
  app.post("/webhook/:customerId", (c) => receive(c, c.req.param("customerId")));
  app.onError(handleError(deps.logger, "The event could not be stored; Postmark will retry."));
  return app;
}

export const POSTMARK_WEBHOOK_PATH = "/api/postmark/webhook";

/** The receiver URL of one customer, without credentials. */
export function postmarkWebhookUrl(origin: string, customerId: string): string {
  return `${origin.replace(/\/$/, "")}${POSTMARK_WEBHOOK_PATH}/${customerId}`;
}
