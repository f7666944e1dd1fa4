import { boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";

const createdAt = () => timestamp({ withTimezone: true, mode: "date", precision: 3 }).notNull().defaultNow();

export const customers = pgTable("customers", {
  id: uuid().primaryKey().defaultRandom(),
  name: text().notNull(),
  createdAt: createdAt(),
});

/** `sandbox`: the provider accepts mail, nothing is delivered or counted. */
export const mailModes = ["live", "sandbox"] as const;

/** The mail service's administrative switches per customer (the access switch is not a payment status). */
export const mailSettings = pgTable("mail_settings", {
  customerId: uuid()
    .primaryKey()
    .references(() => customers.id, { onDelete: "cascade" }),
  sendingBlocked: boolean().notNull().default(false),
  mode: text({ enum: mailModes }).notNull().default("live"),
  monthlyLimit: integer().notNull().default(100_000),
  maxPerJob: integer().notNull().default(50_000),
  updatedAt: createdAt(),
});

export const adsAccountStates = ["active", "deactivated", "overdue", "checkout_open", "ended"] as const;
export const adsStages = ["starter", "growth", "scale", "enterprise"] as const;

export const adsSettings = pgTable("ads_settings", {
  customerId: uuid()
    .primaryKey()
    .references(() => customers.id, { onDelete: "cascade" }),
  accountState: text({ enum: adsAccountStates }).notNull().default("active"),
  stage: text({ enum: adsStages }).notNull().default("starter"),
  /** Included ads per month for the enterprise stage (custom); null for the fixed stages. */
  enterpriseIncludedAds: integer(),
  updatedAt: createdAt(),
});

export const apiKeys = pgTable(
  "api_keys",
  {
    id: uuid().primaryKey().defaultRandom(),
    customerId: uuid()
      .notNull()
      .references(() => customers.id, { onDelete: "cascade" }),
    service: text({ enum: ["mail", "ads"] }).notNull(),
    scope: text({ enum: ["full", "reporting"] }).notNull(),
    /** Visible start of the key, e.g. `mk_live_3fA9`, so operators can tell keys apart. */
    prefix: text().notNull(),
    /** SHA-256 hex of the whole key; the key itself is never stored. */
    hash: text().notNull().unique(),
    /** The operator's name for the key ("shop backend"), so keys are told apart by purpose. */
    label: text(),
    createdAt: createdAt(),
    revokedAt: timestamp({ withTimezone: true, mode: "date", precision: 3 }),
    /** Last authenticated request, to the minute (written when the key is read from the database, at most once a minute). */
    lastUsedAt: timestamp({ withTimezone: true, mode: "date", precision: 3 }),
  },
  (t) => [index().on(t.customerId)],
);

/**
 * Durable idempotency records (embedded default; Upstash in production). One row per
 * (customer, route, key); `responseStatus` null means the first request is still running.
 */
export const idempotencyRecords = pgTable(
  "idempotency_records",
  {
    customerId: uuid().notNull(),
    route: text().notNull(),
    key: text().notNull(),
    fingerprint: text().notNull(),
    responseStatus: integer(),
    responseHeaders: jsonb().$type<Record<string, string>>(),
    responseBody: text(),
    createdAt: createdAt(),
    expiresAt: timestamp({ withTimezone: true, mode: "date", precision: 3 }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.customerId, t.route, t.key] }), index().on(t.expiresAt)],
);
