import { index, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { adsAds } from "./ads";
import { customers } from "./core";
import { webhookDeliveriesTable, webhookEndpointsTable } from "./webhooks";

const at = () => timestamp({ withTimezone: true, mode: "date", precision: 3 });

export const adsWebhookEvents = ["ad.status_changed"] as const;
export type AdsWebhookEvent = (typeof adsWebhookEvents)[number];

/** The ads service's webhook endpoints and their outbox (columns and rules: `./webhooks`). */
export const adsWebhooks = webhookEndpointsTable<AdsWebhookEvent>("ads_webhooks");

export const adsWebhookDeliveries = webhookDeliveriesTable("ads_webhook_deliveries", adsWebhooks, adsWebhookEvents);

/**
 * Every change of an ad's effective status we observed, one row per change, written in the same
 * transaction as the conditional update of the cached status that detected it (that update holds the ad's
 * row lock, so of two paths that saw the same change only the first finds a difference). `id` is the
 * event id customers see in the payload.
 */
export const adsStatusChanges = pgTable(
  "ads_status_changes",
  {
    id: uuid().primaryKey().defaultRandom(),
    customerId: uuid()
      .notNull()
      .references(() => customers.id, { onDelete: "cascade" }),
    adId: uuid()
      .notNull()
      .references(() => adsAds.id, { onDelete: "cascade" }),
    previousStatus: text().notNull(),
    effectiveStatus: text().notNull(),
    reason: text(),
    /** Which path saw it first: `poll`, `platform_webhook`, `status_read`, `update`. */
    source: text().notNull(),
    createdAt: at().notNull().defaultNow(),
  },
  (t) => [index().on(t.adId, t.createdAt), index().on(t.customerId, t.createdAt)],
);
