import type { z } from "@hono/zod-openapi";
import type { CoreDeps } from "../../core/context";
import { enqueueWebhookEvent, publishDeliveries as publishStoreDeliveries, type WebhookStore } from "../../core/webhooks/engine";
import type { Database, Tx } from "../../db/client";
import { mailWebhookDeliveries, mailWebhooks, type MailWebhookEvent, type suppressionReasons, type templateKinds } from "../../db/schema";
import type { SuppressionEntry } from "../suppressions/schema";

/** The mail service's webhook tables and queue topic for the shared delivery engine (`lib/core/webhooks`). */
export const MAIL_WEBHOOKS: WebhookStore = { topic: "mail-webhook-delivery", endpoints: mailWebhooks, deliveries: mailWebhookDeliveries };

export type SuppressionReason = (typeof suppressionReasons)[number];

/**
 * The event-specific fields of each outgoing event. Every body is
 * `{ event, delivery_id, ...fields, occurred_at }` (the spec's `job.completed` shape, extended to the others).
 */
export type MailEventPayloads = {
  "job.completed": {
    send_job_id: string;
    recipients: { total: number; accepted: number; suppressed: number };
  };
  /**
   * The reputation guard stopped the job (`pause_reason` `bounce_rate` or `complaint_rate`, with the sample
   * it judged): no further batch goes out until an operator resumes it.
   */
  "job.paused": {
    send_job_id: string;
    pause_reason: "bounce_rate" | "complaint_rate";
    sample: { outcomes: number; hard_bounces: number; complaints: number; hard_bounce_rate: number; complaint_rate: number };
    thresholds: { bounce_rate: number; complaint_rate: number; min_sample: number };
  };
  "message.bounced": {
    message_id: string;
    send_job_id: string | null;
    kind: (typeof templateKinds)[number];
    bounce_type: string;
    /** HardBounce or `Inactive`: the address gets no more mail; a soft bounce may still be followed by a delivery. */
    final: boolean;
    bounced_at: string;
  };
  /** The same entry the suppression feed lists. */
  "suppression.changed": z.infer<typeof SuppressionEntry>;
};

export type EmitDeps = Pick<CoreDeps, "db" | "clock" | "queue" | "logger">;

/**
 * Writes one outbox row per active endpoint of the customer subscribed to `type`, inside the caller's
 * transaction, and returns their delivery ids; nothing is sent until `publishDeliveries`. Writing the rows
 * with the change that caused them means an event is never lost between commit and publish: the recovery
 * sweep (`mail-webhook-retries` cron) publishes any due row that was not.
 */
export async function enqueueMailEvent<T extends MailWebhookEvent>(
  db: Database | Tx,
  now: Date,
  customerId: string,
  type: T,
  payload: MailEventPayloads[T],
): Promise<string[]> {
  const occurredAt = now.toISOString();
  return enqueueWebhookEvent(MAIL_WEBHOOKS, db, now, customerId, type, (id) =>
    JSON.stringify({ event: type, delivery_id: id, ...payload, occurred_at: occurredAt }),
  );
}

/**
 * Hands committed deliveries to the queue (first attempt, no delay). A failed publish is only logged:
 * the row stays due and the recovery sweep publishes it.
 */
export async function publishDeliveries(deps: Pick<CoreDeps, "queue" | "logger">, deliveryIds: readonly string[]): Promise<void> {
  await publishStoreDeliveries(MAIL_WEBHOOKS, deps, deliveryIds);
}

/**
 * Emits one event to the customer's webhook endpoints: used when a send job completes
 * (`job.completed`) and by the provider-event ingestion. Returns how many deliveries were queued.
 * Callers that change state in a transaction and want the event atomically use `enqueueMailEvent`
 * with their transaction and `publishDeliveries` after the commit.
 */
export async function emitMailEvent<T extends MailWebhookEvent>(deps: EmitDeps, customerId: string, type: T, payload: MailEventPayloads[T]): Promise<number> {
  const ids = await enqueueMailEvent(deps.db, deps.clock.now(), customerId, type, payload);
  await publishDeliveries(deps, ids);
  return ids.length;
}
