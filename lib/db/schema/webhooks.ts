import { boolean, index, integer, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { customers } from "./core";

const at = () => timestamp({ withTimezone: true, mode: "date", precision: 3 });

export const webhookDeliveryStatuses = ["pending", "delivered", "failed"] as const;

/** One finished attempt of a delivery: when it started, the answer's status (null without one), its latency and error. */
export type WebhookAttemptRecord = { attempt: number; at: string; status_code: number | null; latency_ms: number; error: string | null };

/**
 * The table pair of one service's outgoing webhooks, the same columns for every service, so the one
 * delivery engine (`lib/core/webhooks`) works on either pair. Each service keeps its own tables (its
 * customers' endpoints subscribe to its own events).
 *
 * An endpoint's signing secret is sealed (AES-256-GCM) and shown once at creation. `active` turns false
 * when a delivery exhausted its 24 h of retries; inactive endpoints get no new events. `lastDeliveryAt` is
 * the last successful delivery, `failureCount` the failed attempts since then.
 */
export function webhookEndpointsTable<E extends string>(name: string) {
  return pgTable(
    name,
    {
      id: uuid().primaryKey().defaultRandom(),
      customerId: uuid()
        .notNull()
        .references(() => customers.id, { onDelete: "cascade" }),
      url: text().notNull(),
      events: jsonb().$type<E[]>().notNull(),
      secretSealed: text().notNull(),
      active: boolean().notNull().default(true),
      deactivatedAt: at(),
      deactivationReason: text(),
      lastDeliveryAt: at(),
      failureCount: integer().notNull().default(0),
      createdAt: at().notNull().defaultNow(),
    },
    (t) => [index().on(t.customerId, t.createdAt)],
  );
}

export type WebhookEndpointsTable = ReturnType<typeof webhookEndpointsTable<string>>;

/**
 * One event for one endpoint (the outbox). `id` is the `X-Service-Delivery` header, stable across
 * retries; `body` is the exact JSON sent on every attempt (a jsonb column would reorder keys). `attempts`
 * counts started attempts: a worker claims attempt n with a conditional update from n-1, so a queue
 * message delivered twice never posts twice. `nextAttemptAt` is when the recovery sweep may re-publish
 * the delivery (the lease of a running attempt, or the next retry).
 */
export function webhookDeliveriesTable<E extends string>(name: string, endpoints: WebhookEndpointsTable, events: readonly [E, ...E[]]) {
  return pgTable(
    name,
    {
      id: uuid().primaryKey(),
      webhookId: uuid()
        .notNull()
        .references(() => endpoints.id, { onDelete: "cascade" }),
      customerId: uuid()
        .notNull()
        .references(() => customers.id, { onDelete: "cascade" }),
      event: text({ enum: events as unknown as [E, ...E[]] }).notNull(),
      body: text().notNull(),
      status: text({ enum: webhookDeliveryStatuses }).notNull().default("pending"),
      attempts: integer().notNull().default(0),
      nextAttemptAt: at().notNull(),
      lastAttemptAt: at(),
      lastStatusCode: integer(),
      lastError: text(),
      /** Milliseconds from the last attempt's request to its answer (or failure). */
      lastLatencyMs: integer(),
      /** The start of the last answer's body: at most 1,024 bytes of valid UTF-8 (Stripe and Svix show the same). */
      lastResponseExcerpt: text(),
      /**
       * Set when someone asked for a redelivery of a finished delivery: that attempt is a single one (a failure
       * is recorded, never retried on the schedule and never deactivates the endpoint).
       */
      redeliveredAt: at(),
      /** Every finished attempt, oldest first (at most the schedule's eight plus redeliveries and tests). */
      attemptLog: jsonb().$type<WebhookAttemptRecord[]>().notNull().default([]),
      createdAt: at().notNull().defaultNow(),
      completedAt: at(),
    },
    // The delivery log of one endpoint pages newest first by (created_at, id).
    (t) => [index().on(t.status, t.nextAttemptAt), index().on(t.webhookId, t.createdAt, t.id)],
  );
}

export type WebhookDeliveriesTable = ReturnType<typeof webhookDeliveriesTable<string>>;
