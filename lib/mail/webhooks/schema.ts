import { z } from "@hono/zod-openapi";
import { WEBHOOK_DELIVERY_HEADER, WEBHOOK_EVENT_HEADER, WEBHOOK_SIGNATURE_HEADER } from "../../core/webhook-signature";
import { WEBHOOK_MAX_ATTEMPTS } from "../../core/webhooks/engine";
import { deliveryListQuery, webhookDeliveryFields, webhookEndpointFields } from "../../core/webhooks/schema";
import { mailWebhookEvents } from "../../db/schema";

const webhookId = "4d2a7f0e-8c1b-4b6e-9f3d-1a2b3c4d5e6f";

const EventName = z.enum(mailWebhookEvents).openapi({ description: "An event name.", example: "job.completed" });

const endpoint = webhookEndpointFields.shape;

/** Every field but `events` is the shared engine's (`webhookEndpointFields`), described for this service. */
export const Webhook = z
  .object({
    id: endpoint.id.openapi({ description: "Webhook endpoint id.", example: webhookId }),
    url: endpoint.url.openapi({ description: "The https endpoint events are POSTed to.", example: "https://portal.example.com/hooks/mail" }),
    events: z.array(EventName).openapi({ description: "Subscribed events.", example: ["job.completed", "suppression.changed"] }),
    active: endpoint.active.openapi({
      description: "False once deliveries failed for 24 hours; inactive endpoints receive nothing. Re-enable it with `POST /v1/webhooks/{id}/enable`.",
      example: true,
    }),
    deactivated_at: endpoint.deactivated_at.openapi({ description: "ISO 8601; when the endpoint was deactivated, else null.", example: null }),
    deactivation_reason: endpoint.deactivation_reason.openapi({ description: "Why it was deactivated, else null.", example: null }),
    status: endpoint.status.openapi({ description: "`active`, or `inactive` once deliveries failed for 24 hours (the same as `active`).", example: "active" }),
    last_delivery_at: endpoint.last_delivery_at.openapi({
      description: "ISO 8601; the last successful delivery, else null.",
      example: "2026-03-01T10:05:00.000Z",
    }),
    failure_count: endpoint.failure_count.openapi({ description: "Failed delivery attempts since the last successful one.", example: 0 }),
    created_at: endpoint.created_at.openapi({ description: "ISO 8601.", example: "2026-03-01T10:00:00.000Z" }),
  })
  .openapi("Webhook");

export const WebhookWithSecret = Webhook.extend({
  signing_secret: z.string().openapi({
    description:
      "Signing secret (`whsec_…`), shown only in this response: store it now. The HMAC key is this string exactly (UTF-8, prefix included). The same field name as the ads service's.",
    example: "whsec_9bq0Xr2m2w1mQ2rA9cQ3c8c2a7dK1b3X5Yt0z4u6v8w",
  }),
  secret: z.string().openapi({
    description: "Deprecated alias of `signing_secret` (the same value), kept for existing integrations; read `signing_secret`.",
    deprecated: true,
    example: "whsec_9bq0Xr2m2w1mQ2rA9cQ3c8c2a7dK1b3X5Yt0z4u6v8w",
  }),
}).openapi("WebhookWithSecret");

export const CreateWebhook = z
  .object({
    url: z
      .url({ protocol: /^https$/, error: "Must be an absolute https URL." })
      .max(2048)
      .openapi({
        description: "An https URL on a public host (no credentials, no private or loopback address).",
        example: "https://portal.example.com/hooks/mail",
      }),
    events: z
      .array(EventName)
      .min(1)
      .max(mailWebhookEvents.length)
      .openapi({ description: "Events to receive, at least one.", example: ["job.completed"] }),
  })
  .strict()
  .openapi("CreateWebhook");

export const WebhookDeleted = z
  .object({
    id: z.uuid().openapi({ description: "The deleted endpoint.", example: webhookId }),
    deleted: z.boolean().openapi({ description: "Always true.", example: true }),
  })
  .openapi("WebhookDeleted");

export const DELIVERY_RULES = `Every event is POSTed as JSON with the headers \`${WEBHOOK_SIGNATURE_HEADER}: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the secret>\`, \`${WEBHOOK_EVENT_HEADER}\` (the event name) and \`${WEBHOOK_DELIVERY_HEADER}\` (the delivery id, also \`delivery_id\` in the body, stable across retries: deduplicate on it). Verify the signature on the raw body before parsing and reject timestamps more than 5 minutes from your clock; every attempt is signed afresh. A 2xx within 15 seconds is success; any other status, a redirect or a time-out is retried after about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 6 h (±10 %; ${WEBHOOK_MAX_ATTEMPTS} attempts within 24 h), after which the endpoint is marked inactive.

Bodies are \`{ event, delivery_id, …fields, occurred_at }\`:
- \`job.completed\`: \`send_job_id\`, \`recipients: { total, accepted, suppressed }\` (the spec's shape).
- \`job.paused\`: \`send_job_id\`, \`pause_reason\` (\`bounce_rate\` or \`complaint_rate\`: the reputation guard stopped the job because its hard-bounce or spam-complaint rate passed the threshold), \`sample: { outcomes, hard_bounces, complaints, hard_bounce_rate, complaint_rate }\` and \`thresholds: { bounce_rate, complaint_rate, min_sample }\` (rates as fractions, 0.001 = 0.1 %). No further batch goes out; an operator of the service resumes or cancels the job.
- \`message.bounced\`: \`message_id\`, \`send_job_id\` (null for transactional mail), \`kind\`, \`bounce_type\` (Postmark's type, e.g. \`HardBounce\`, \`SoftBounce\`), \`final\` (true for a HardBounce or when Postmark deactivated the address; a soft bounce can still be followed by a delivery, and the message then shows \`delivered\`), \`bounced_at\`. Sent once per bounce the provider reports.
- \`suppression.changed\`: \`email\`, \`stream\`, \`active\`, \`reason\`, \`reactivatable\`, \`changed_at\`: exactly the entry that appears in \`GET /v1/suppressions\`.`;

export const WebhookDelivery = webhookDeliveryFields(mailWebhookEvents).openapi("WebhookDelivery");

export const DeliveryListQuery = deliveryListQuery(mailWebhookEvents);
