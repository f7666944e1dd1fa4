import { bigint, bigserial, index, integer, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { mailModes } from "./core";

const at = () => timestamp({ withTimezone: true, mode: "date", precision: 3 });

/**
 * How many messages each customer has per hour of creation (UTC), mode and current state: the operator's
 * overview reads these instead of the messages. Kept by statement triggers on `mail_messages`
 * (drizzle/0028_mail_message_counts.sql), which append one row per (customer, hour, mode, status) and statement
 * to `mail_message_count_deltas` (append-only: concurrent writers never wait on a shared counter row); a
 * reader folds the deltas into this table under an advisory lock, and the sum of both is exact at any time.
 * A message counts in the hour it was created and under the state it has now (`sending` under its own name),
 * so a figure equals the message list filtered by state and creation time.
 */
export const mailMessageCounts = pgTable(
  "mail_message_counts",
  {
    customerId: uuid().notNull(),
    hour: at().notNull(),
    mode: text({ enum: mailModes }).notNull(),
    status: text().notNull(),
    count: bigint({ mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.customerId, t.hour, t.mode, t.status] }), index().on(t.hour)],
);

export const mailMessageCountDeltas = pgTable("mail_message_count_deltas", {
  id: bigserial({ mode: "number" }).primaryKey(),
  customerId: uuid().notNull(),
  hour: at().notNull(),
  mode: text({ enum: mailModes }).notNull(),
  status: text().notNull(),
  delta: integer().notNull(),
});

/** The operator's time series of a customer's mail (lib/mail/messages/stats.ts): one series per time column of a message. */
export const messageSeries = ["accepted", "delivered", "bounced", "complained", "opened", "clicked"] as const;

/**
 * How many of a customer's messages have each time column (`accepted_at`, `delivered_at`, `bounced_at`,
 * `complained_at`, `first_opened_at`, `first_clicked_at`) in each UTC hour: the operator's time series read
 * these instead of indexes on `mail_messages`, so the provider's events update a message without touching
 * an index. Kept like `mail_message_counts`: statement triggers on `mail_messages` (migration 0041) append
 * one delta per (customer, hour, series) and statement, a reader folds them in under an advisory lock, and
 * counts plus unfolded deltas are exact at any time. A time that changes moves its message from one hour to
 * the other; a message deleted leaves its hours.
 */
export const mailMessageSeriesCounts = pgTable(
  "mail_message_series_counts",
  {
    customerId: uuid().notNull(),
    hour: at().notNull(),
    series: text({ enum: messageSeries }).notNull(),
    count: bigint({ mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.customerId, t.hour, t.series] })],
);

export const mailMessageSeriesDeltas = pgTable("mail_message_series_deltas", {
  id: bigserial({ mode: "number" }).primaryKey(),
  customerId: uuid().notNull(),
  hour: at().notNull(),
  series: text({ enum: messageSeries }).notNull(),
  delta: integer().notNull(),
});
