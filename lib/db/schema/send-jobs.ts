import { bigint, date, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import type { CompiledTemplate } from "../json-columns";
import { customers, mailModes } from "./core";
import { mailMessages, type SenderRecord } from "./mail";
import { sendJobStatuses } from "./vocabulary";

const at = () => timestamp({ withTimezone: true, mode: "date", precision: 3 });
const counter = () => integer().notNull().default(0);

export const sendJobPauseReasons = ["sending_blocked", "monthly_limit", "provider_not_ready", "bounce_rate", "complaint_rate"] as const;

/** Phase 1 of the job's template, fixed at start: the compiled HTML and the template's fixed values (the subject is filled with them too). */
export type SendJobRender = {
  html: CompiledTemplate;
  values: Record<string, string>;
  /** The template's version rendered (absent on jobs started before it was recorded). */
  templateVersion?: number;
};

/**
 * A newsletter send job (DESIGN §5). The counters are kept with the job and change in the same
 * transaction as the messages they count, so `total = accepted + suppressed + invalid + failed + unknown
 * + pending` holds at every commit. `compiled` is phase 1 of the template, rendered once at start; the
 * batches only personalise it. `run` numbers the batch lanes of one stretch of running (start, resume,
 * recovery): a batch descriptor of an earlier run is stale and does nothing. `subject` is the template's
 * subject, filled per recipient.
 */
export const mailSendJobs = pgTable(
  "mail_send_jobs",
  {
    id: uuid().primaryKey().defaultRandom(),
    customerId: uuid()
      .notNull()
      .references(() => customers.id, { onDelete: "cascade" }),
    status: text({ enum: sendJobStatuses }).notNull().default("draft"),
    mode: text({ enum: mailModes }).notNull(),
    templateId: uuid().notNull(),
    /** The operator's and the customer's label for the job; set at create (given, or the template's name and the date). Null on jobs made before names existed. */
    name: text(),
    params: jsonb().$type<Record<string, string>>().notNull().default({}),
    from: jsonb().$type<SenderRecord>().notNull(),
    replyTo: text(),
    scheduledAt: at(),
    subject: text(),
    compiled: jsonb().$type<SendJobRender>(),
    pauseReason: text({ enum: sendJobPauseReasons }),
    error: text(),
    run: integer().notNull().default(0),
    total: counter(),
    accepted: counter(),
    suppressed: counter(),
    invalid: counter(),
    failed: counter(),
    unknown: counter(),
    pending: counter(),
    /** Of `accepted`: recipients Postmark's search later showed it received twice (counted twice in usage). */
    sentTwice: counter(),
    batchesCompleted: counter(),
    createdAt: at().notNull().defaultNow(),
    updatedAt: at().notNull().defaultNow(),
    startedAt: at(),
    completedAt: at(),
    /** Last claim or record of a batch: a running job without progress for a while has a lost batch. */
    lastProgressAt: at(),
    /**
     * The reputation guard's sample since start or the last resume (lib/mail/send-jobs/guard.ts): messages
     * with a first outcome (delivered or bounced), of them hard-bounced, and spam complaints.
     */
    guardOutcomes: counter(),
    guardHardBounces: counter(),
    guardComplaints: counter(),
  },
  (t) => [index().on(t.customerId, t.createdAt), index().on(t.status, t.scheduledAt)],
);

/**
 * The transient part of a job's recipients, in rows of up to 500 (one provider batch): a JSON array of
 * `[message_id, address, display name | null, data]`. A batch claims a row by giving it a `batch_id`
 * (sent to the provider in every message's `Metadata`) and `claimed_at`; the row is deleted when the
 * batch's results are recorded. A row whose outcome is in doubt (no answer, a crash) keeps only the
 * recipients still in doubt until reconciliation knows what the provider received, so a message the
 * provider never got can be sent again. Whatever is left goes when the job ends. Unparsable addresses
 * have no row (nothing to send), only an `invalid` message.
 */
export const mailSendJobChunks = pgTable(
  "mail_send_job_chunks",
  {
    sendJobId: uuid()
      .notNull()
      .references(() => mailSendJobs.id, { onDelete: "cascade" }),
    seq: bigint({ mode: "number" }).generatedAlwaysAsIdentity(),
    recipients: text().notNull(),
    /** Set when a batch claims the row: the `batch_id` in the provider's `Metadata`. */
    batchId: uuid(),
    /** When the claim was made, just before the provider call: the start of the reconciliation grace period. */
    claimedAt: at(),
    /**
     * Until when the batch's provider call may still be in flight. The worker renews it while it waits for
     * the provider, so a slow call is never taken for a lost one; once it has passed (the worker died), or
     * once the call ended without a definite answer (then it is set to that moment), the row's messages
     * are in doubt since this instant.
     */
    leaseUntil: at(),
    /**
     * The deadline of the batch's call in doubt (../../mail/send-jobs/provider-health.ts), stored once
     * computed: `evidenceFrom`, when Postmark was answering promptly again after the call; `evidenceAfter`,
     * the moment after which Postmark can no longer take in any of it. Cleared with the claim.
     */
    evidenceFrom: at(),
    evidenceAfter: at(),
  },
  (t) => [primaryKey({ columns: [t.sendJobId, t.seq] }), index().on(t.claimedAt)],
);

/**
 * Duplicate detection of a draft job: its recipients as sorted sets (base64 of 32-byte entries: the
 * first 16 bytes of the address hash, then the message id), one segment per add call (`seq` 0, 1, …),
 * written under the job row's lock. A unique index over 100,000 random hashes costs several times more
 * than the rest of the ingest, and rewriting one growing set per call cost a third of it (3 MB written
 * 20 times); a segment is written once and the sets are searched by binary search in memory. Deleted
 * when the job ends.
 */
export const mailSendJobAddressSets = pgTable(
  "mail_send_job_address_sets",
  {
    sendJobId: uuid()
      .notNull()
      .references(() => mailSendJobs.id, { onDelete: "cascade" }),
    seq: integer().notNull().default(0),
    entries: text().notNull(),
    count: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.sendJobId, t.seq] })],
);

/**
 * One billing report per customer and UTC day: the body (and its idempotency key) is fixed when the row
 * is first written, so posting the same day again sends exactly the same request.
 */
export const mailBillingReports = pgTable(
  "mail_billing_reports",
  {
    customerId: uuid()
      .notNull()
      .references(() => customers.id, { onDelete: "cascade" }),
    day: date({ mode: "string" }).notNull(),
    accepted: integer().notNull(),
    body: text().notNull(),
    idempotencyKey: text().notNull(),
    attempts: counter(),
    lastError: text(),
    createdAt: at().notNull().defaultNow(),
    postedAt: at(),
  },
  (t) => [primaryKey({ columns: [t.customerId, t.day] }), index().on(t.postedAt)],
);

export const bulkRequestStatuses = ["Accepted", "Processing", "Completed", "Failed"] as const;

/**
 * One Postmark Bulk API request of a send job (one per batch sent on the bulk path): Postmark's request id
 * and the status its `GET /email/bulk/{id}` last reported. Informational: the messages' own states come
 * from the send answer, webhooks and reconciliation, exactly as on the batch path.
 */
export const mailSendJobBulkRequests = pgTable(
  "mail_send_job_bulk_requests",
  {
    requestId: text().primaryKey(),
    jobId: uuid()
      .notNull()
      .references(() => mailSendJobs.id, { onDelete: "cascade" }),
    batchId: text().notNull(),
    status: text({ enum: bulkRequestStatuses }).notNull(),
    totalMessages: integer().notNull(),
    percentageCompleted: integer().notNull().default(0),
    submittedAt: at(),
    checkedAt: at().notNull().defaultNow(),
  },
  (t) => [index().on(t.jobId, t.checkedAt)],
);

/**
 * How a customer's Postmark server has been answering, as the service saw it (its own sends and the probes
 * reconciliation sends on a quiet server; ../../mail/send-jobs/provider-health.ts): the evidence that a call
 * in doubt can no longer be taken in. `healthySince`: the first prompt answer of the current run (the run
 * counts only while later than `lastFailureAt`, the latest call left without a prompt answer: in doubt,
 * lost with its worker, or answered slowly). `lastAnswerAt`: the latest prompt answer recorded;
 * `probeSentAt`: the latest probe, so processes do not probe at once.
 */
export const mailProviderHealth = pgTable("mail_provider_health", {
  customerId: uuid()
    .primaryKey()
    .references(() => customers.id, { onDelete: "cascade" }),
  healthySince: at(),
  lastAnswerAt: at(),
  lastFailureAt: at(),
  probeSentAt: at(),
  updatedAt: at().notNull().defaultNow(),
});

/**
 * Recipients of a batch that was in doubt and was decided "never received" (sent again, or failed after
 * their second hand-over): Postmark's search is asked about the original call again for a while, so a copy
 * it shows late is recorded (../../mail/send-jobs/late-truth.ts). `messageIds`: a JSON array of the
 * messages still watched; `checkAfter`: the next asking; `checks`: askings so far; `until`: the last one.
 */
export const mailSendJobRechecks = pgTable(
  "mail_send_job_rechecks",
  {
    sendJobId: uuid()
      .notNull()
      .references(() => mailSendJobs.id, { onDelete: "cascade" }),
    batchId: uuid().notNull(),
    customerId: uuid()
      .notNull()
      .references(() => customers.id, { onDelete: "cascade" }),
    messageIds: text().notNull(),
    checkAfter: at().notNull(),
    checks: integer().notNull().default(0),
    until: at().notNull(),
  },
  (t) => [primaryKey({ columns: [t.sendJobId, t.batchId] }), index().on(t.checkAfter)],
);

/**
 * A transactional mail decided "never received" (`failed`: the customer was told "outcome unknown"):
 * Postmark's search is asked about it again for a while, so a call Postmark took in late makes it
 * `accepted` (../../mail/send-jobs/late-truth.ts). `checkAfter`: the next asking; `checks`: askings so
 * far; `until`: the last one.
 */
export const mailMessageRechecks = pgTable(
  "mail_message_rechecks",
  {
    messageId: uuid()
      .primaryKey()
      .references(() => mailMessages.id, { onDelete: "cascade" }),
    customerId: uuid()
      .notNull()
      .references(() => customers.id, { onDelete: "cascade" }),
    checkAfter: at().notNull(),
    checks: integer().notNull().default(0),
    until: at().notNull(),
  },
  (t) => [index().on(t.checkAfter)],
);

/**
 * A second copy of a message Postmark received (the search showed the original call of a batch sent again
 * after it was decided "never received"): counted in usage and billing beside the message itself, as
 * Postmark counts it.
 */
export const mailMessageExtraCopies = pgTable(
  "mail_message_extra_copies",
  {
    providerMessageId: text().primaryKey(),
    messageId: uuid().notNull(),
    customerId: uuid()
      .notNull()
      .references(() => customers.id, { onDelete: "cascade" }),
    sendJobId: uuid().references(() => mailSendJobs.id, { onDelete: "cascade" }),
    mode: text({ enum: mailModes }).notNull(),
    acceptedAt: at().notNull(),
  },
  (t) => [index().on(t.customerId, t.acceptedAt)],
);
