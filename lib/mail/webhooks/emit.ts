import { and, eq, sql } from "drizzle-orm";
import type { CoreDeps } from "../../core/context";
import type { Database, Tx } from "../../db/client";
import { mailWebhookDeliveries, mailWebhooks, type MailWebhookEvent } from "../../db/schema";
import type { Stream } from "../suppressions/mirror";

/** Queue topic of the delivery worker (`lib/mail/webhooks/delivery.ts`). */
export const WEBHOOK_DELIVERY_TOPIC = "mail-webhook-delivery";

export type SuppressionReason = "unsubscribe" | "hard_bounce" | "spam_complaint";

/**
 * The event-specific fields of each outgoing event. Every body is
 * `{ event, delivery_id, ...fields, occurred_at }` (the spec's `job.completed` shape, extended to the others).
 */
export type MailEventPayloads = {
  "job.completed": {
    send_job_id: string;
    recipients: { total: number; accepted: number; suppressed: number };
  };
  "message.bounced": {
    message_id: string;
    send_job_id: string | null;
    kind: "transactional" | "newsletter";
    bounce_type: string;
    /** HardBounce or `Inactive`: the address gets no more mail; a soft bounce may still be followed by a delivery. */
    final: boolean;
    bounced_at: string;
  };
  "suppression.changed": {
    email: string;
    stream: Stream;
    active: boolean;
    reason: SuppressionReason;
    reactivatable: boolean;
    changed_at: string;
  };
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
  const endpoints = await db
    .select({ id: mailWebhooks.id })
    .from(mailWebhooks)
    .where(and(eq(mailWebhooks.customerId, customerId), eq(mailWebhooks.active, true), sql`${mailWebhooks.events} @> ${JSON.stringify([type])}::jsonb`));
  if (endpoints.length === 0) return [];
  const occurredAt = now.toISOString();
  const rows = endpoints.map((endpoint) => {
    const id = crypto.randomUUID();
    return {
      id,
      webhookId: endpoint.id,
      customerId,
      event: type,
      body: JSON.stringify({ event: type, delivery_id: id, ...payload, occurred_at: occurredAt }),
      nextAttemptAt: now,
      createdAt: now,
    };
  });
  await db.insert(mailWebhookDeliveries).values(rows);
  return rows.map((row) => row.id);
}

/**
 * Hands committed deliveries to the queue (first attempt, no delay). A failed publish is only logged:
 * the row stays due and the recovery sweep publishes it.
 */
export async function publishDeliveries(deps: Pick<CoreDeps, "queue" | "logger">, deliveryIds: readonly string[]): Promise<void> {
  for (const id of deliveryIds) {
    try {
      await deps.queue.publish(WEBHOOK_DELIVERY_TOPIC, { delivery_id: id, attempt: 1 });
    } catch (error) {
      deps.logger.warn("webhook delivery not published; the recovery sweep will", { delivery_id: id, error: String(error) });
    }
  }
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
