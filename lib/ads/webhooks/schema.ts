import { z } from "@hono/zod-openapi";
import { WEBHOOK_DELIVERY_HEADER, WEBHOOK_EVENT_HEADER, WEBHOOK_SIGNATURE_HEADER } from "../../core/webhook-signature";
import { WEBHOOK_MAX_ATTEMPTS } from "../../core/webhooks/engine";
import { MAX_WEBHOOKS_PER_CUSTOMER } from "../../core/webhooks/registrations";
import { deliveryListQuery, webhookDeliveryFields, webhookEndpointFields } from "../../core/webhooks/schema";
import { adsWebhookEvents } from "../../db/schema";

const webhookId = "7c9e6679-7425-40de-944b-e07fc1f90ae7";

const EventName = z.enum(adsWebhookEvents).openapi({ description: "An event name; `ad.status_changed` is the only one.", example: "ad.status_changed" });

const endpoint = webhookEndpointFields.shape;

/** Every field but `events` is the shared engine's (`webhookEndpointFields`), described for this service. */
export const AdsWebhook = z
  .object({
    id: endpoint.id.openapi({ description: "Webhook registration id.", example: webhookId }),
    url: endpoint.url.openapi({ description: "The https endpoint events are POSTed to.", example: "https://portal.example.com/hooks/ads" }),
    events: z.array(EventName).openapi({ description: "Subscribed events.", example: ["ad.status_changed"] }),
    status: endpoint.status.openapi({
      description:
        "`active`, or `inactive` once deliveries failed for 24 hours; an inactive registration receives nothing (re-enable it with `POST /v1/webhooks/{id}/enable`).",
      example: "active",
    }),
    active: endpoint.active.openapi({ description: "`status` as a boolean.", example: true }),
    last_delivery_at: endpoint.last_delivery_at.openapi({
      description: "ISO 8601; the last successful delivery, else null.",
      example: "2026-03-01T10:05:00.000Z",
    }),
    failure_count: endpoint.failure_count.openapi({ description: "Failed delivery attempts since the last successful one (0 after a success).", example: 0 }),
    deactivated_at: endpoint.deactivated_at.openapi({ description: "ISO 8601; when the registration became inactive, else null.", example: null }),
    deactivation_reason: endpoint.deactivation_reason.openapi({ description: "Why it became inactive, else null.", example: null }),
    created_at: endpoint.created_at.openapi({ description: "ISO 8601.", example: "2026-03-01T10:00:00.000Z" }),
  })
  .openapi("AdsWebhook");

export const AdsWebhookCreated = z
  .object({
    id: AdsWebhook.shape.id,
    url: AdsWebhook.shape.url,
    events: AdsWebhook.shape.events,
    active: AdsWebhook.shape.active,
    status: AdsWebhook.shape.status,
    created_at: AdsWebhook.shape.created_at,
    signing_secret: z.string().openapi({
      description: "Signing secret (`whsec_…`), shown only in this response: store it now. The HMAC key is this string exactly (UTF-8, prefix included).",
      example: "whsec_9bq0Xr2m2w1mQ2rA9cQ3c8c2a7dK1b3X5Yt0z4u6v8w",
    }),
  })
  .openapi("AdsWebhookCreated");

export const CreateAdsWebhook = z
  .object({
    url: z
      .url({ protocol: /^https$/, error: "Must be an absolute https URL." })
      .max(2048)
      .openapi({
        description: "An https URL on a public host (no credentials, no private or loopback address); http answers 422.",
        example: "https://portal.example.com/hooks/ads",
      }),
    events: z
      .array(EventName)
      .min(1)
      .max(adsWebhookEvents.length)
      .default(["ad.status_changed"])
      .openapi({ description: 'Events to receive; default `["ad.status_changed"]`.', example: ["ad.status_changed"] }),
  })
  .strict()
  .openapi("CreateAdsWebhook");

export const AdsWebhookDeleted = z
  .object({
    id: z.uuid().openapi({ description: "The deleted registration.", example: webhookId }),
    deleted: z.boolean().openapi({ description: "Always true.", example: true }),
  })
  .openapi("AdsWebhookDeleted");

export const ADS_DELIVERY_RULES = `Every event is POSTed as JSON: \`{ id, type: "ad.status_changed", created, data: { ad_id, effective_status, reason, previous_status } }\` — \`id\` is the event id (the same for every registration and every retry), \`created\` unix seconds, \`ad_id\` our ad id, \`reason\` the review feedback (\`POLICY_CODE: explanation\`) of a disapproval or the platform's issue text for \`WITH_ISSUES\`, else null; \`previous_status\` is the cached status before the change (additive to the spec's shape). One event per ad and change, whichever way we learnt of it first (a platform webhook, our poll of ads under review, in post-processing, with issues or changed in the last 24 hours, a \`GET /v1/status/{ad_id}\`, or your own \`PATCH\`/\`DELETE /v1/ads/{id}\`): the poll runs every minute, so a review outcome is reported within about a minute.

Headers: \`${WEBHOOK_SIGNATURE_HEADER}: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the signing secret>\`, \`${WEBHOOK_EVENT_HEADER}\` (the event name) and \`${WEBHOOK_DELIVERY_HEADER}\` (the delivery id, stable across retries: deduplicate on it). Verify the signature on the raw body before parsing and reject timestamps more than 5 minutes from your clock; every attempt is signed afresh. A 2xx within 15 seconds is success; any other status, a redirect or a time-out is retried after about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 6 h (±10 % jitter; ${WEBHOOK_MAX_ATTEMPTS} attempts within 24 hours), after which the registration becomes \`inactive\`. The URL is checked again on every attempt (DNS answers change). At most ${MAX_WEBHOOKS_PER_CUSTOMER} registrations per account.`;

export const AdsWebhookDelivery = webhookDeliveryFields(adsWebhookEvents).openapi("AdsWebhookDelivery");

export const AdsDeliveryListQuery = deliveryListQuery(adsWebhookEvents);
