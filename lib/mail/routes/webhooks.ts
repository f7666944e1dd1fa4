import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../core/context";
import { envelope, errorResponses } from "../../core/openapi";
import { serviceRoute } from "../../core/route";
import { WEBHOOK_DELIVERY_HEADER, WEBHOOK_EVENT_HEADER, WEBHOOK_SIGNATURE_HEADER } from "../../core/webhook-signature";
import { mailWebhookEvents, type MailWebhookEvent } from "../../db/schema";
import type { MailDeps } from "../deps";
import { WEBHOOK_MAX_ATTEMPTS } from "../../core/webhooks/engine";
import { createWebhook, deleteWebhook, listWebhooks, MAX_WEBHOOKS_PER_CUSTOMER } from "../../core/webhooks/registrations";
import { MAIL_WEBHOOKS } from "../webhooks/emit";
import { IdParam } from "./schema";

const json = <T extends z.ZodType>(schema: T) => ({ "application/json": { schema } });
const webhookId = "4d2a7f0e-8c1b-4b6e-9f3d-1a2b3c4d5e6f";

const EventName = z.enum(mailWebhookEvents).openapi({ description: "An event name.", example: "job.completed" });

export const Webhook = z
  .object({
    id: z.uuid().openapi({ description: "Webhook endpoint id.", example: webhookId }),
    url: z.string().openapi({ description: "The https endpoint events are POSTed to.", example: "https://portal.example.com/hooks/mail" }),
    events: z.array(EventName).openapi({ description: "Subscribed events.", example: ["job.completed", "suppression.changed"] }),
    active: z.boolean().openapi({ description: "False once deliveries failed for 24 hours; inactive endpoints receive nothing. Register the endpoint again to resume.", example: true }),
    deactivated_at: z.string().nullable().openapi({ description: "ISO 8601; when the endpoint was deactivated, else null.", example: null }),
    deactivation_reason: z.string().nullable().openapi({ description: "Why it was deactivated, else null.", example: null }),
    status: z.enum(["active", "inactive"]).openapi({ description: "`active`, or `inactive` once deliveries failed for 24 hours (the same as `active`).", example: "active" }),
    last_delivery_at: z.string().nullable().openapi({ description: "ISO 8601; the last successful delivery, else null.", example: "2026-03-01T10:05:00.000Z" }),
    failure_count: z.number().int().openapi({ description: "Failed delivery attempts since the last successful one.", example: 0 }),
    created_at: z.string().openapi({ description: "ISO 8601.", example: "2026-03-01T10:00:00.000Z" }),
  })
  .openapi("Webhook");

export const WebhookWithSecret = Webhook.extend({
  secret: z.string().openapi({
    description: "Signing secret (`whsec_…`), shown only in this response: store it now. The HMAC key is this string exactly (UTF-8, prefix included).",
    example: "whsec_9bq0Xr2m2w1mQ2rA9cQ3c8c2a7dK1b3X5Yt0z4u6v8w",
  }),
}).openapi("WebhookWithSecret");

export const CreateWebhook = z
  .object({
    url: z.url({ protocol: /^https$/, error: "Must be an absolute https URL." }).max(2048).openapi({ description: "An https URL on a public host (no credentials, no private or loopback address).", example: "https://portal.example.com/hooks/mail" }),
    events: z.array(EventName).min(1).max(mailWebhookEvents.length).openapi({ description: "Events to receive, at least one.", example: ["job.completed"] }),
  })
  .strict()
  .openapi("CreateWebhook");

const WebhookDeleted = z
  .object({
    id: z.uuid().openapi({ description: "The deleted endpoint.", example: webhookId }),
    deleted: z.boolean().openapi({ description: "Always true.", example: true }),
  })
  .openapi("WebhookDeleted");

const DELIVERY_RULES = `Every event is POSTed as JSON with the headers \`${WEBHOOK_SIGNATURE_HEADER}: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the secret>\`, \`${WEBHOOK_EVENT_HEADER}\` (the event name) and \`${WEBHOOK_DELIVERY_HEADER}\` (the delivery id, also \`delivery_id\` in the body, stable across retries: deduplicate on it). Verify the signature on the raw body before parsing and reject timestamps more than 5 minutes from your clock; every attempt is signed afresh. A 2xx within 15 seconds is success; any other status, a redirect or a time-out is retried after about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 6 h (±10 %; ${WEBHOOK_MAX_ATTEMPTS} attempts within 24 h), after which the endpoint is marked inactive.

Bodies are \`{ event, delivery_id, …fields, occurred_at }\`:
- \`job.completed\`: \`send_job_id\`, \`recipients: { total, accepted, suppressed }\` (the spec's shape).
- \`message.bounced\`: \`message_id\`, \`send_job_id\` (null for transactional mail), \`kind\`, \`bounce_type\` (Postmark's type, e.g. \`HardBounce\`, \`SoftBounce\`), \`final\` (true for a HardBounce or when Postmark deactivated the address; a soft bounce can still be followed by a delivery, and the message then shows \`delivered\`), \`bounced_at\`. Sent once per bounce the provider reports.
- \`suppression.changed\`: \`email\`, \`stream\`, \`active\`, \`reason\`, \`reactivatable\`, \`changed_at\`: exactly the entry that appears in \`GET /v1/suppressions\`.`;

export function registerWebhookRoutes(app: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  app.openapi(
    serviceRoute(deps, "write", {
      method: "post",
      path: "/v1/webhooks",
      operationId: "createWebhook",
      tags: ["Webhooks"],
      summary: "Register a webhook endpoint",
      description: `Registers an https endpoint for \`job.completed\`, \`message.bounced\` and/or \`suppression.changed\` and returns its signing secret once. At most ${MAX_WEBHOOKS_PER_CUSTOMER} endpoints per account (409 \`details.reason = webhook_limit_reached\`). A URL that is not https, carries credentials or names a private, loopback or link-local address answers 422.\n\n${DELIVERY_RULES}`,
      request: { body: { required: true, content: json(CreateWebhook) } },
      responses: { 201: { description: "The endpoint with its secret (shown this once).", content: json(envelope(WebhookWithSecret)) }, ...errorResponses("mail", [400, 401, 403, 409, 422, 429, 500]) },
    }),
    async (c) => {
      const webhook = await createWebhook(MAIL_WEBHOOKS, deps, c.get("principal").customerId, c.req.valid("json"));
      return c.json({ data: webhook, request_id: c.get("requestId") }, 201);
    },
  );

  app.openapi(
    serviceRoute(deps, "read", {
      method: "get",
      path: "/v1/webhooks",
      operationId: "listWebhooks",
      tags: ["Webhooks"],
      summary: "List webhook endpoints",
      description: `This account's endpoints, oldest first, without their secrets (at most ${MAX_WEBHOOKS_PER_CUSTOMER}, so the list is not paginated).`,
      responses: { 200: { description: "The endpoints.", content: json(envelope(z.array(Webhook))) }, ...errorResponses("mail", [401, 429, 500]) },
    }),
    async (c) => c.json({ data: await listWebhooks<MailWebhookEvent>(MAIL_WEBHOOKS, deps.db, c.get("principal").customerId), request_id: c.get("requestId") }, 200),
  );

  app.openapi(
    serviceRoute(deps, "write", {
      method: "delete",
      path: "/v1/webhooks/{id}",
      operationId: "deleteWebhook",
      tags: ["Webhooks"],
      summary: "Delete a webhook endpoint",
      description: "Removes the endpoint; deliveries still pending for it are dropped. Another account's id answers 404.",
      request: { params: IdParam },
      responses: { 200: { description: "Deleted.", content: json(envelope(WebhookDeleted)) }, ...errorResponses("mail", [401, 403, 404, 422, 429, 500]) },
    }),
    async (c) => {
      const id = c.req.valid("param").id;
      await deleteWebhook(MAIL_WEBHOOKS, deps.db, c.get("principal").customerId, id);
      return c.json({ data: { id, deleted: true }, request_id: c.get("requestId") }, 200);
    },
  );
}
