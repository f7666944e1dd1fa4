import { boolean, index, integer, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { customers } from "./core";

const at = () => timestamp({ withTimezone: true, mode: "date", precision: 3 });

export const mailWebhookEvents = ["job.completed", "message.bounced", "suppression.changed"] as const;
export type MailWebhookEvent = (typeof mailWebhookEvents)[number];

/**
 * A customer's webhook endpoint. The signing secret is sealed (AES-256-GCM) and shown once at creation.
 * `active` turns false when a delivery exhausted its 24 h of retries; inactive endpoints get no new events.
 */
export const mailWebhooks = pgTable(
  "mail_webhooks",
  {
    id: uuid().primaryKey().defaultRandom(),
    customerId: uuid()
      .notNull()
      .references(() => customers.id, { onDelete: "cascade" }),
    url: text().notNull(),
    events: jsonb().$type<MailWebhookEvent[]>().notNull(),
    secretSealed: text().notNull(),
    active: boolean().notNull().default(true),
    deactivatedAt: at(),
    deactivationReason: text(),
    createdAt: at().notNull().defaultNow(),
  },
  (t) => [index().on(t.customerId, t.createdAt)],
);

export const mailWebhookDeliveryStatuses = ["pending", "delivered", "failed"] as const;

/**
 * One event for one endpoint (the outbox). `id` is the `X-Service-Delivery` header and the payload's
 * `delivery_id`, stable across retries; `body` is the exact JSON sent on every attempt (a jsonb column
 * would reorder keys). `attempts` counts started attempts: a worker claims attempt n with a conditional
 * update from n-1, so a queue message delivered twice never posts twice. `nextAttemptAt` is when the
 * recovery sweep may re-publish the delivery (the lease of a running attempt, or the next retry).
 */
export const mailWebhookDeliveries = pgTable(
  "mail_webhook_deliveries",
  {
    id: uuid().primaryKey(),
    webhookId: uuid()
      .notNull()
      .references(() => mailWebhooks.id, { onDelete: "cascade" }),
    customerId: uuid()
      .notNull()
      .references(() => customers.id, { onDelete: "cascade" }),
    event: text({ enum: mailWebhookEvents }).notNull(),
    body: text().notNull(),
    status: text({ enum: mailWebhookDeliveryStatuses }).notNull().default("pending"),
    attempts: integer().notNull().default(0),
    nextAttemptAt: at().notNull(),
    lastAttemptAt: at(),
    lastStatusCode: integer(),
    lastError: text(),
    createdAt: at().notNull().defaultNow(),
    completedAt: at(),
  },
  (t) => [index().on(t.status, t.nextAttemptAt), index().on(t.webhookId)],
);
