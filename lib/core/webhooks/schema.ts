import { z } from "@hono/zod-openapi";
import { cursorQuery, limitQuery } from "../pagination";
import { WEBHOOK_TEST_EVENT } from "./engine";
import { webhookDeliveryStatuses } from "../../db/schema/webhooks";

const deliveryId = "0d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6";
const webhookId = "4d2a7f0e-8c1b-4b6e-9f3d-1a2b3c4d5e6f";
const iso = (description: string, example: string | null) => z.string().nullable().openapi({ description, example });

export const DELIVERY_LOG_RULES =
  "Newest first, cursor-paginated (`after` from `paging.after`; the order is stable while new deliveries arrive). Finished deliveries are kept 30 days. Each item shows the last attempt: its status code, latency and the first 1,024 bytes of the answer's body (valid UTF-8; a longer body is cut on a character boundary), or the error when there was no answer (time-out, redirect, TLS, DNS).";

/**
 * A webhook endpoint's fields as both services answer them. Each service's schema (`Webhook`, `AdsWebhook`)
 * takes its fields from here, with its own descriptions and its own event names; the shared engine's view
 * (`WebhookView`, ./registrations.ts) is inferred from it.
 */
export const webhookEndpointFields = z.object({
  id: z.uuid(),
  url: z.string(),
  events: z.array(z.string()),
  status: z.enum(["active", "inactive"]),
  active: z.boolean(),
  deactivated_at: z.string().nullable(),
  deactivation_reason: z.string().nullable(),
  last_delivery_at: z.string().nullable(),
  failure_count: z.number().int(),
  created_at: z.string(),
});

/** A delivery log entry, the same fields in both services (each names it in its own document). */
export function webhookDeliveryFields<const E extends readonly [string, ...string[]]>(events: E) {
  return z.object({
    id: z.uuid().openapi({ description: "Delivery id: the `X-Service-Delivery` header, the same on every attempt and redelivery.", example: deliveryId }),
    webhook_id: z.uuid().openapi({ description: "The endpoint it is for.", example: webhookId }),
    event: z.enum([...events, WEBHOOK_TEST_EVENT]).openapi({
      description: "The event name (`X-Service-Event`); `webhook.test` for a test event sent with `POST /v1/webhooks/{id}/test`.",
      example: events[0],
    }),
    status: z.enum(webhookDeliveryStatuses).openapi({
      description:
        "`pending` while attempts remain (or a redelivery is queued), `delivered` after a 2xx, `failed` when the 24 hours of retries ended, the endpoint was inactive or a redelivery failed.",
      example: "delivered",
    }),
    attempts: z.number().int().openapi({ description: "Attempts started so far, redeliveries included.", example: 1 }),
    status_code: z.number().int().nullable().openapi({ description: "HTTP status of the last attempt's answer; null without an answer.", example: 200 }),
    latency_ms: z.number().int().nullable().openapi({ description: "Milliseconds from the last attempt's request to its answer or failure.", example: 182 }),
    response_excerpt: z
      .string()
      .nullable()
      .openapi({ description: "The first 1,024 bytes of the last answer's body (valid UTF-8); null when empty or without an answer.", example: '{"ok":true}' }),
    error: z.string().nullable().openapi({ description: "Why the last attempt failed; null after a success.", example: null }),
    next_attempt_at: iso("ISO 8601; while `pending`, when the next attempt is due (or the lease of the one running); else null.", null),
    last_attempt_at: iso("ISO 8601; when the last attempt started.", "2026-03-01T10:00:01.000Z"),
    redelivered_at: iso("ISO 8601; when a redelivery was last asked for, else null.", null),
    created_at: z.string().openapi({ description: "ISO 8601; when the event was queued for this endpoint.", example: "2026-03-01T10:00:00.000Z" }),
    completed_at: iso("ISO 8601; when it was delivered or gave up, else null.", "2026-03-01T10:00:01.182Z"),
    attempt_history: z
      .array(
        z.object({
          attempt: z.number().int().openapi({ description: "The attempt's number (1 for the first; redeliveries and tests continue the count).", example: 1 }),
          at: z.string().openapi({ description: "ISO 8601; when the attempt started.", example: "2026-03-01T10:00:01.000Z" }),
          status_code: z.number().int().nullable().openapi({ description: "HTTP status of the answer; null without an answer.", example: 503 }),
          latency_ms: z.number().int().openapi({ description: "Milliseconds from the request to its answer or failure.", example: 182 }),
          error: z.string().nullable().openapi({ description: "Why it failed; null after a 2xx.", example: "The endpoint answered 503." }),
        }),
      )
      .openapi({
        description:
          "Every finished attempt, oldest first: when it started, its status code, latency and error (the body is kept for the last one only, `response_excerpt`).",
      }),
    request: z
      .object({
        headers: z.record(z.string(), z.string()).openapi({
          description:
            "The headers every attempt sends. `X-Service-Signature` is made afresh per attempt with the endpoint's secret and not stored: its value shows its form and the last attempt's time, never anything derived from the secret.",
          example: { "Content-Type": "application/json", "X-Service-Event": events[0], "X-Service-Delivery": deliveryId },
        }),
        body: z.string().openapi({ description: "The exact JSON body every attempt posts.", example: `{"event":"${events[0]}"}` }),
      })
      .openapi({ description: "The request we send to the endpoint." }),
  });
}

/** The delivery log's query: cursor, page size and two filters. */
export function deliveryListQuery<const E extends readonly [string, ...string[]]>(events: E) {
  return z.object({
    ...cursorQuery,
    limit: limitQuery(100, 25),
    status: z.enum(webhookDeliveryStatuses).optional().openapi({ description: "Only deliveries in this state.", example: "failed" }),
    event: z
      .enum([...events, WEBHOOK_TEST_EVENT])
      .optional()
      .openapi({ description: "Only this event (`webhook.test`: the test events).", example: events[0] }),
  });
}

export const DeliveryParams = z.object({
  id: z.uuid().openapi({ param: { name: "id", in: "path" }, description: "Webhook endpoint id.", example: webhookId }),
  delivery_id: z.uuid().openapi({ param: { name: "delivery_id", in: "path" }, description: "Delivery id.", example: deliveryId }),
});

export const REDELIVER_RULES =
  "Sends the delivery again now, with the same `X-Service-Delivery` id and body (signed afresh), so a receiver that deduplicates acts once. A finished delivery (`delivered` or `failed`) gets one attempt: its failure is recorded, not retried on the schedule, and never deactivates the endpoint. A `pending` one waiting for its next retry is attempted now and keeps its schedule. Answers the delivery as it stands (`pending`); read the log for the outcome. Send `Idempotency-Key`: a retried request with the same key replays the first answer and sends nothing again. 409 with `reason` `webhook_inactive` while the endpoint is inactive (re-enable it first) and `delivery_in_progress` while an attempt is running.";

export const ENABLE_RULES =
  "Re-enables an endpoint that was marked inactive after 24 hours of failed deliveries: it receives new events again and `failure_count` starts at 0. Deliveries that failed meanwhile stay failed; redeliver the ones you need. Enabling an active endpoint changes nothing (idempotent).";

export const TEST_EVENT_RULES =
  'Sends a test event to this endpoint now, whatever events it subscribed to: `X-Service-Event: webhook.test`, signed like every delivery, in the service\'s body shape: mail `{ event: "webhook.test", delivery_id, webhook_id, test: true, message, occurred_at }`, ads `{ id, type: "webhook.test", created, data: { webhook_id, test: true, message } }`. It is one attempt (not retried, never deactivates the endpoint) and appears in the endpoint\'s delivery log with the answer\'s status, latency and body. Answers the delivery as it stands (`pending`); read the log for the outcome. Send `Idempotency-Key`: a retried request with the same key replays the first answer and sends nothing again. 409 with `reason` `webhook_inactive` while the endpoint is inactive (re-enable it first).';
