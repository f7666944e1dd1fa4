import { sql } from "drizzle-orm";
import { boolean, check, customType, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import type { BlockParam, BlockParamType } from "../json-columns";
import { customers, mailModes } from "./core";
import { templateStatuses } from "./vocabulary";

const at = () => timestamp({ withTimezone: true, mode: "date", precision: 3 });
const customerRef = () =>
  uuid()
    .notNull()
    .references(() => customers.id, { onDelete: "cascade" });

/**
 * A SHA-256 digest stored as its 32 bytes (`bytea`), read and written as lower-case hex: half the bytes of
 * the hex text in the row and in every index that holds it, the same string to the code.
 */
const sha256Digest = customType<{ data: string; driverData: Uint8Array }>({
  dataType: () => "bytea",
  toDriver: (hex) => Buffer.from(hex, "hex"),
  fromDriver: (bytes) => Buffer.from(bytes).toString("hex"),
});

export type TagRecord = { slug: string; label: string };
/** Contract parameters take the same value types as block parameters (image parameters take a URL). */
export type ContractEntry = { name: string; label: string; type: BlockParamType; required: boolean; example: string };

export const templateKinds = ["transactional", "newsletter"] as const;
/** Postmark message streams: broadcast (newsletters) and outbound (transactional); suppressions apply per stream. */
export const mailStreams = ["newsletter", "transactional"] as const;
/** Why an address is suppressed; a spam complaint outranks a hard bounce, which outranks an unsubscribe. */
export const suppressionReasons = ["unsubscribe", "hard_bounce", "spam_complaint"] as const;
export const templateOrigins = ["admin", "customer"] as const;
export type StackRecord = { block_id: string; values: Record<string, string> }[];
export type SenderRecord = { email: string; name: string };
export type BrandRecord = {
  company_name: string;
  logo_url: string | null;
  website_url: string | null;
  imprint: string;
  address: string;
};

/** Blocks are global (admin-maintained) and fit every customer; customers use the ones enabled for them. */
export const mailBlocks = pgTable("mail_blocks", {
  id: uuid().primaryKey().defaultRandom(),
  slug: text().notNull(),
  name: text().notNull(),
  description: text(),
  mjml: text().notNull(),
  params: jsonb().$type<BlockParam[]>().notNull(),
  tags: jsonb().$type<TagRecord[]>().notNull(),
  series: jsonb().$type<TagRecord | null>(),
  version: integer().notNull().default(1),
  active: boolean().notNull().default(true),
  createdAt: at().notNull().defaultNow(),
  updatedAt: at().notNull().defaultNow(),
});

export const mailBlockEnablements = pgTable(
  "mail_block_enablements",
  {
    customerId: customerRef(),
    blockId: uuid()
      .notNull()
      .references(() => mailBlocks.id, { onDelete: "cascade" }),
    enabledAt: at().notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.customerId, t.blockId] })],
);

/** Partial overrides over the complete default tokens; `version` feeds the tile cache key. */
export const mailDesignRules = pgTable("mail_design_rules", {
  customerId: uuid()
    .primaryKey()
    .references(() => customers.id, { onDelete: "cascade" }),
  overrides: jsonb().$type<Record<string, string>>().notNull(),
  version: integer().notNull().default(1),
  updatedAt: at().notNull().defaultNow(),
});

export const mailFrames = pgTable("mail_frames", {
  customerId: uuid()
    .primaryKey()
    .references(() => customers.id, { onDelete: "cascade" }),
  headerMjml: text(),
  newsletterFooterMjml: text().notNull(),
  transactionalFooterMjml: text().notNull(),
  brand: jsonb().$type<BrandRecord>().notNull(),
  version: integer().notNull().default(1),
  updatedAt: at().notNull().defaultNow(),
});

/** The customer's Postmark server; the token is sealed with AES-256-GCM and never returned. */
export const mailProviderConfigs = pgTable("mail_provider_configs", {
  customerId: uuid()
    .primaryKey()
    .references(() => customers.id, { onDelete: "cascade" }),
  serverTokenSealed: text(),
  transactionalStream: text(),
  broadcastStream: text(),
  verifiedSenders: jsonb().$type<string[]>().notNull().default([]),
  verifiedDomains: jsonb().$type<string[]>().notNull().default([]),
  defaultNewsletterFrom: jsonb().$type<SenderRecord | null>(),
  defaultTransactionalFrom: jsonb().$type<SenderRecord | null>(),
  /** Newsletter batches go to Postmark's Bulk API (enabled per account by Postmark support). */
  bulkApiEnabled: boolean().notNull().default(false),
  /** Postmark account token (Account API: sender signatures, domains), sealed like the server token; write-only. */
  accountTokenSealed: text(),
  /** The operator's reputation-guard thresholds for this customer; null keeps the defaults (lib/mail/send-jobs/guard.ts). */
  reputationGuard: jsonb().$type<ReputationGuardRecord | null>(),
  updatedAt: at().notNull().defaultNow(),
});

/** Rates as fractions (0.1 = 10 %), the sample as a count of outcomes. */
export type ReputationGuardRecord = { bounce_rate: number; complaint_rate: number; min_sample: number };

/**
 * The HTTP Basic credentials of one customer's Postmark webhook URL (`/api/postmark/webhook/{customer_id}`).
 * The password is sealed at rest; after a rotation the previous one keeps working until
 * `previousValidUntil`, so the operator can update Postmark without losing events.
 */
export const mailPostmarkWebhookCredentials = pgTable("mail_postmark_webhook_credentials", {
  customerId: uuid()
    .primaryKey()
    .references(() => customers.id, { onDelete: "cascade" }),
  username: text().notNull(),
  passwordSealed: text().notNull(),
  previousPasswordSealed: text(),
  previousValidUntil: at(),
  rotatedAt: at().notNull().defaultNow(),
});

export const mailTemplates = pgTable(
  "mail_templates",
  {
    id: uuid().primaryKey().defaultRandom(),
    customerId: customerRef(),
    name: text().notNull(),
    kind: text({ enum: templateKinds }).notNull(),
    origin: text({ enum: templateOrigins }).notNull(),
    subject: text().notNull(),
    status: text({ enum: templateStatuses }).notNull().default("active"),
    params: jsonb().$type<ContractEntry[]>().notNull().default([]),
    blocks: jsonb().$type<StackRecord | null>(),
    from: jsonb().$type<SenderRecord | null>(),
    /** Global values of a builder stack (spec: preview `values`), kept with the template. */
    values: jsonb().$type<Record<string, string>>().notNull().default({}),
    version: integer().notNull().default(1),
    createdAt: at().notNull().defaultNow(),
    updatedAt: at().notNull().defaultNow(),
    deletedAt: at(),
  },
  (t) => [index().on(t.customerId, t.createdAt)],
);

export const messageStatuses = ["pending", "sending", "accepted", "delivered", "bounced", "complained", "suppressed", "invalid", "failed", "unknown"] as const;

/**
 * One row per e-mail. `sending` is the in-flight mark set before the provider call: a row found in
 * `sending` after a crash becomes `unknown` and is never sent again. The address itself is not kept here;
 * `recipientHash` (SHA-256 of the normalised address) is.
 */
export const mailMessages = pgTable(
  "mail_messages",
  {
    id: uuid().primaryKey().defaultRandom(),
    customerId: customerRef(),
    kind: text({ enum: templateKinds }).notNull(),
    mode: text({ enum: mailModes }).notNull(),
    status: text({ enum: messageStatuses }).notNull(),
    templateId: uuid().notNull(),
    sendJobId: uuid(),
    /**
     * The subject as written (`{{placeholders}}` unfilled) of a transactional message. Null on a send job's
     * messages (migration 0042): they have their job's subject (`mail_send_jobs.subject`, fixed at start),
     * read through `messageSubject`; rows written before keep their own copy.
     */
    subject: text(),
    /** SHA-256 of the normalised address (`recipientHash`): the address itself is never stored. */
    recipientHash: sha256Digest().notNull(),
    providerMessageId: text(),
    bounceType: text(),
    /** Whether the bounce in `bouncedAt`/`bounceType` is final (HardBounce or `Inactive`); only a final one outranks a delivery. */
    bounceFinal: boolean().notNull().default(false),
    error: text(),
    /**
     * How often this message was handed to the provider (a send job's batch call). Raised by the conditional
     * update that marks it `sending`, which refuses past two: no message is handed over more than twice.
     */
    attempts: integer().notNull().default(0),
    createdAt: at().notNull().defaultNow(),
    acceptedAt: at(),
    deliveredAt: at(),
    firstOpenedAt: at(),
    firstClickedAt: at(),
    bouncedAt: at(),
    complainedAt: at(),
  },
  // Stored with fillfactor 50 (migration 0035): the claim and every provider event update a message in place
  // (heap-only, HOT) only when no index holds a column they change and the new version fits on the row's own
  // page; with half of each page free it does, and the dead versions are pruned there. No index holds the
  // status or an event time for that reason: the operator's time series are counted by triggers
  // (`mail_message_series_counts`, migration 0041), a job's messages are found by the job alone. The record
  // of a batch (Postmark's id, `accepted_at`) still changes indexed columns and moves each row once.
  // Provider events without our id in Metadata are attributed by Postmark's MessageID (hash index: equality
  // only, a quarter of a btree's bytes); the operator's message search pages newest first by (created_at, id)
  // per customer.
  (t) => [
    index().on(t.customerId, t.acceptedAt),
    index().on(t.sendJobId).where(sql`${t.sendJobId} is not null`),
    index().using("hash", t.providerMessageId),
    // Recovery's sweep for transactional mail lost in flight or in doubt (`sending`, `unknown`): both are
    // messages without a job that Postmark has not taken (no `accepted_at`). The status is not in the index
    // (that would make every status change move its row); the sweep filters it among these few rows.
    index().on(t.createdAt).where(sql`${t.sendJobId} is null and ${t.acceptedAt} is null`),
    index().on(t.customerId, t.createdAt, t.id),
    // Both searches by address (the hash only: no address is stored) look the hash up by equality: an address
    // has few messages, which are filtered by customer and sorted after the lookup.
    index().using("hash", t.recipientHash),
  ],
);

export type MessageEventRecord = { type: string; at: string; details: Record<string, unknown> };

/** Provider events per message, stored idempotently by the provider's event identity. */
export const mailMessageEvents = pgTable(
  "mail_message_events",
  {
    id: uuid().primaryKey().defaultRandom(),
    messageId: uuid().notNull(),
    customerId: customerRef(),
    type: text().notNull(),
    occurredAt: at().notNull(),
    identity: text().notNull(),
    details: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    receivedAt: at().notNull().defaultNow(),
  },
  (t) => [uniqueIndex().on(t.messageId, t.identity), index().on(t.messageId, t.occurredAt), index().on(t.occurredAt)],
);

/**
 * The suppression mirror: one current row per (customer, stream, address) plus the change feed order
 * (`changedAt`, `id`). Addresses are stored normalised (lower-case). A row without `changedAt` (and
 * without `reason`) was never in the feed: the provider lifted a suppression the mirror never saw set, and
 * the row only keeps that lift's time in `sourceAt`, so the set arriving late is recognised as stale.
 */
export const mailSuppressions = pgTable(
  "mail_suppressions",
  {
    id: uuid().primaryKey().defaultRandom(),
    customerId: customerRef(),
    stream: text({ enum: mailStreams }).notNull(),
    email: text().notNull(),
    active: boolean().notNull(),
    reason: text({ enum: suppressionReasons }),
    changedAt: at(),
    /** When the provider made the latest change the mirror has seen; an older change arriving late is ignored. */
    sourceAt: at(),
  },
  (t) => [
    uniqueIndex().on(t.customerId, t.stream, t.email),
    index().on(t.customerId, t.stream, t.changedAt, t.id),
    // In the feed (changed_at set) exactly when a reason is known; an active suppression is always in it.
    check("mail_suppressions_listed", sql`(${t.changedAt} is null) = (${t.reason} is null) and (${t.changedAt} is not null or not ${t.active})`),
  ],
);
