import { and, eq, getTableColumns, inArray, isNull, lte, or, sql } from "drizzle-orm";
import { z } from "zod";
import type { CoreDeps } from "../../core/context";
import { ForbiddenError } from "../../core/errors";
import type { Database } from "../../db/client";
import { mailMessages, mailSendJobAddressSets, mailSendJobChunks, mailSendJobs, mailSettings } from "../../db/schema";
import type { MailDeps } from "../app";
import { POSTMARK_TEST_TOKEN, type PostmarkProvider, type SendOutcome } from "../provider/postmark";
import { requireReadyProvider } from "../setup/provider-config";
import { lookupSuppressions } from "../suppressions/mirror";
import { monthlyAcceptedLive, noteAcceptedLive } from "../usage/meter";
import { enqueueMailEvent, publishDeliveries } from "../webhooks/emit";
import { createBatchWriter, type BatchRecipient, type BatchWriter } from "./batch-payload";
import { timeOrderedUuid } from "./ids";
import { BATCH_SIZE, type SendJobRow } from "./model";
import type { ChunkEntry } from "./recipients";
import { queryRows } from "./sql";

/*
 * The sending engine. Start publishes batch descriptors (job, run, batch number; never HTML) to the queue:
 * QStash in production, the in-process dispatcher embedded. Up to LANES batches of a job are in flight at
 * once; each batch, when recorded, publishes the one LANES numbers further, so memory stays flat in the
 * number of recipients. A batch:
 *   1. re-checks the job (running, same run), the access switch, provider readiness and the monthly limit
 *      (any of those failing pauses the job; start resumes it);
 *   2. claims up to 500 recipients in one transaction: the next rows after the job's claim cursor are
 *      deleted from the recipient table (their addresses are not kept past this point) and their messages
 *      marked `sending`;
 *   3. checks the newsletter-stream suppression mirror for the whole batch in one query (suppressed: no
 *      provider call), personalises and sends ONE `/email/batch` on the broadcast stream;
 *   4. records every result and the job counters in one transaction, from `sending` only.
 * Exactly once towards the provider: a message is `sending` before the call, and nothing ever moves a
 * message back to `pending`. A batch delivered twice claims other recipients (or none). After a crash a
 * `sending` message becomes `unknown` (recovery below) and is never sent again; the job resumes from its
 * cursor. No pending recipient left: the job completes and `job.completed` is emitted.
 */

export const SEND_JOB_BATCH_TOPIC = "send-job-batch";
export const SEND_JOB_START_TOPIC = "send-job-start";
/** Batches of one job in flight at once: overlaps the provider call of one with the bookkeeping of another. */
export const LANES = 3;
/** A running job without a claim or record for this long has lost its batches (a worker died). */
export const STALL_MS = 5 * 60_000;
/** After a batch whose outcome was unknown throughout (provider down), the next one waits this long. */
const UNKNOWN_BACKOFF_SECONDS = 30;
/** QStash's longest delay; a job scheduled further out is re-published on arrival (and the cron starts it). */
const MAX_DELAY_SECONDS = 7 * 24 * 3600;

export const CANCELLED = "cancelled";
const SUPPRESSED_ON_STREAM = "The address is suppressed on the newsletter stream.";
const LOST_IN_FLIGHT = "The worker stopped while the provider call was in flight; the outcome is unknown and the mail is not sent again.";

const BatchDescriptor = z.object({ job_id: z.uuid(), customer_id: z.uuid(), run: z.number().int(), batch: z.number().int().positive() });
const StartDescriptor = z.object({ job_id: z.uuid(), customer_id: z.uuid() });
type BatchDescriptor = z.infer<typeof BatchDescriptor>;

type QueueDeps = Pick<CoreDeps, "queue" | "clock">;
export type EngineDeps = Pick<CoreDeps, "db" | "clock" | "queue" | "logger">;

type JobRef = Pick<SendJobRow, "id" | "customerId" | "run" | "pending">;

/** Lanes 1..n of a run; a job with few recipients gets as many lanes as it has batches. */
export async function publishLanes(deps: QueueDeps, job: JobRef): Promise<void> {
  const lanes = Math.min(LANES, Math.max(1, Math.ceil(job.pending / BATCH_SIZE)));
  for (let batch = 1; batch <= lanes; batch++) await publishBatch(deps, { job_id: job.id, customer_id: job.customerId, run: job.run, batch });
}

async function publishBatch(deps: QueueDeps, descriptor: BatchDescriptor, delaySeconds = 0): Promise<void> {
  await deps.queue.publish(SEND_JOB_BATCH_TOPIC, descriptor, {
    deduplicationId: `send-job-batch-${descriptor.job_id}-${descriptor.run}-${descriptor.batch}`,
    ...(delaySeconds > 0 ? { delaySeconds } : {}),
  });
}

export async function publishScheduledStart(deps: QueueDeps, job: Pick<SendJobRow, "id" | "customerId" | "scheduledAt">): Promise<void> {
  const due = job.scheduledAt?.getTime() ?? 0;
  const delaySeconds = Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.ceil((due - deps.clock.now().getTime()) / 1000)));
  await deps.queue.publish(SEND_JOB_START_TOPIC, { job_id: job.id, customer_id: job.customerId }, { delaySeconds, deduplicationId: `send-job-start-${job.id}-${due}` });
}

export function registerSendJobWorkers(deps: MailDeps, postmark: PostmarkProvider): void {
  deps.queue.register(SEND_JOB_BATCH_TOPIC, (body) => runSendJobBatch(deps, postmark, body));
  deps.queue.register(SEND_JOB_START_TOPIC, (body) => runScheduledStart(deps, body));
}

/** scheduled → running once `scheduled_at` has come; a message that arrives early is re-published. */
export async function runScheduledStart(deps: EngineDeps, body: unknown): Promise<void> {
  const parsed = StartDescriptor.safeParse(body);
  if (!parsed.success) {
    deps.logger.error("send-job start: malformed descriptor dropped", { error: parsed.error.message });
    return;
  }
  const { job_id: id, customer_id: customerId } = parsed.data;
  if (await startDueJob(deps, id, customerId)) return;
  const [job] = await deps.db.select().from(mailSendJobs).where(and(eq(mailSendJobs.id, id), eq(mailSendJobs.customerId, customerId), eq(mailSendJobs.status, "scheduled")));
  if (job) await publishScheduledStart(deps, job);
}

async function startDueJob(deps: EngineDeps, id: string, customerId: string): Promise<boolean> {
  const now = deps.clock.now();
  const [job] = await deps.db
    .update(mailSendJobs)
    .set({ status: "running", run: sql`${mailSendJobs.run} + 1`, startedAt: now, lastProgressAt: now, updatedAt: now })
    .where(and(eq(mailSendJobs.id, id), eq(mailSendJobs.customerId, customerId), eq(mailSendJobs.status, "scheduled"), lte(mailSendJobs.scheduledAt, now)))
    .returning();
  if (!job) return false;
  deps.logger.info("send job started at its scheduled time", { send_job_id: id });
  await publishLanes(deps, job);
  return true;
}

/** A running job as a batch reads it: everything but the rendered template (see `batchWriter`). */
type BatchJob = Omit<SendJobRow, "compiled">;
const { compiled: _compiled, ...batchJobColumns } = getTableColumns(mailSendJobs);

/**
 * Batch writers of recently sending jobs. A job's rendered template, subject, params, sender and
 * reply-to are written when it starts and never change afterwards, so one writer serves every batch of
 * a run on a stream; the template (tens of KB of JSON) is read from the database once per run instead of
 * once per batch. Keyed by job, run and stream (a provider configuration change takes effect at the next
 * batch); a few jobs at a time, the oldest dropped.
 */
const writers = new Map<string, BatchWriter>();
const KEPT_WRITERS = 8;

async function batchWriter(db: Database, job: BatchJob, stream: string): Promise<BatchWriter | { error: string }> {
  const key = `${job.id}|${job.run}|${stream}`;
  const kept = writers.get(key);
  if (kept) return kept;
  const [row] = await db.select({ compiled: mailSendJobs.compiled }).from(mailSendJobs).where(eq(mailSendJobs.id, job.id));
  const render = row?.compiled;
  if (!render || render.html.format !== 1) return { error: "The job's rendered template is missing or of an unknown format; it cannot be sent." };
  let writer: BatchWriter;
  try {
    writer = createBatchWriter({ compiled: render.html, subject: job.subject ?? "", defaults: { ...render.values, ...job.params }, from: job.from, replyTo: job.replyTo, stream, sendJobId: job.id });
  } catch (error) {
    return { error: `The template could not be rendered: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (writers.size >= KEPT_WRITERS) writers.delete(writers.keys().next().value as string);
  writers.set(key, writer);
  return writer;
}

type Claim = { kind: "stale" } | { kind: "exhausted" } | { kind: "claimed"; rows: BatchRecipient[] };
type Result = { messageId: string; status: "accepted" | "suppressed" | "invalid" | "failed" | "unknown"; providerMessageId: string | null; error: string | null; subject: string };

/** One batch of a job (the queue worker). Safe to run twice: see the top of this file. */
export async function runSendJobBatch(deps: MailDeps, postmark: PostmarkProvider, body: unknown): Promise<void> {
  const parsed = BatchDescriptor.safeParse(body);
  if (!parsed.success) {
    deps.logger.error("send-job batch: malformed descriptor dropped", { error: parsed.error.message });
    return;
  }
  const descriptor = parsed.data;
  const { db } = deps;
  // The job with its customer's access switch and monthly limit, in one read.
  const [found] = await db
    .select({ job: batchJobColumns, settings: { sendingBlocked: mailSettings.sendingBlocked, monthlyLimit: mailSettings.monthlyLimit } })
    .from(mailSendJobs)
    .leftJoin(mailSettings, eq(mailSettings.customerId, mailSendJobs.customerId))
    .where(and(eq(mailSendJobs.id, descriptor.job_id), eq(mailSendJobs.customerId, descriptor.customer_id)));
  const job = found?.job;
  if (!job || job.status !== "running" || job.run !== descriptor.run) return;
  const settings = found.settings;
  if (!settings || settings.sendingBlocked) return pauseJob(deps, job, "sending_blocked");
  let serverToken: string;
  let stream: string;
  try {
    const credentials = await requireReadyProvider(db, deps.secrets, job.customerId);
    serverToken = job.mode === "sandbox" ? POSTMARK_TEST_TOKEN : credentials.serverToken;
    stream = credentials.broadcastStream;
  } catch (error) {
    if (error instanceof ForbiddenError) return pauseJob(deps, job, "provider_not_ready");
    throw error;
  }
  const writer = await batchWriter(db, job, stream);
  if ("error" in writer) return failJob(deps, job, writer.error);

  let size = BATCH_SIZE;
  if (job.mode === "live") {
    const room = settings.monthlyLimit - (await monthlyAcceptedLive(db, job.customerId, deps.clock.now()));
    if (room <= 0) return pauseJob(deps, job, "monthly_limit");
    size = Math.min(size, room);
  }

  let claim: Claim = { kind: "claimed", rows: [] };
  // A claimed row can hold nothing sendable any more (a cancel raced it); take the next one then.
  while (claim.kind === "claimed" && claim.rows.length === 0) claim = await claimBatch(db, job, descriptor.run, size, deps.clock.now());
  if (claim.kind === "stale") return;
  if (claim.kind === "exhausted") return completeJob(deps, job.id);
  const recipients = claim.rows;

  const mirror = await lookupSuppressions(db, job.customerId, "newsletter", recipients.map((r) => r.email));
  const results: Result[] = [];
  const toSend: BatchRecipient[] = [];
  recipients.forEach((recipient, i) => {
    if (mirror[i]?.suppressed) {
      results.push({ messageId: recipient.messageId, status: "suppressed", providerMessageId: null, error: SUPPRESSED_ON_STREAM, subject: writer.subject(recipient) });
    } else toSend.push(recipient);
  });
  let outcomes: SendOutcome[] = [];
  if (toSend.length > 0) {
    const { body, subjects } = writer.write(toSend);
    outcomes = await postmark.sendBatchJson(serverToken, body, toSend.length);
    toSend.forEach((recipient, i) => results.push(resultOf(recipient.messageId, subjects[i] ?? "", outcomes[i])));
  }

  const recorded = await recordBatch(deps, job, results);
  const refused = outcomes.length > 0 && outcomes.every((o) => o.kind === "failed");
  if (refused) {
    // Every message refused for a reason that is not the recipient's (token, sender, stream): the job as a whole.
    const first = outcomes[0];
    return failJob(deps, job, `The provider refused the job: ${first?.kind === "failed" ? `Postmark error ${first.code}: ${first.message}` : "unknown reason"}`);
  }
  if (recorded.pending === 0) return completeJob(deps, job.id);
  if (recorded.status === "running" && recorded.run === descriptor.run) {
    const providerDown = outcomes.length > 0 && outcomes.every((o) => o.kind === "unknown");
    await publishBatch(deps, { ...descriptor, batch: descriptor.batch + LANES }, providerDown ? UNKNOWN_BACKOFF_SECONDS : 0);
  }
}

function resultOf(messageId: string, subject: string, outcome: SendOutcome | undefined): Result {
  switch (outcome?.kind) {
    case "accepted":
      return { messageId, subject, status: "accepted", providerMessageId: outcome.providerMessageId, error: null };
    case "suppressed":
    case "invalid":
      return { messageId, subject, status: outcome.kind, providerMessageId: null, error: outcome.message };
    case "failed":
      return { messageId, subject, status: "failed", providerMessageId: null, error: `Postmark error ${outcome.code}: ${outcome.message}` };
    case "unknown":
      return { messageId, subject, status: "unknown", providerMessageId: null, error: outcome.message };
    case undefined:
      return { messageId, subject, status: "unknown", providerMessageId: null, error: "No result for this message in the batch answer." };
  }
}

/**
 * Takes the next row of recipients, if the job is still running in this run. The row is deleted (the
 * addresses leave the database here) and its messages become `sending` in the same transaction, so a
 * crash after the commit leaves in-flight messages (recovered as `unknown`) and never a recipient sent
 * twice. Only `size` recipients are taken when the monthly limit leaves less than a row; the rest goes
 * back as a row of its own. The job row is locked for the claim, so lanes of one job claim in turn.
 */
async function claimBatch(db: Database, job: BatchJob, run: number, size: number, now: Date): Promise<Claim> {
  return db.transaction(async (tx) => {
    const [locked] = await tx
      .update(mailSendJobs)
      .set({ lastProgressAt: now })
      .where(and(eq(mailSendJobs.id, job.id), eq(mailSendJobs.status, "running"), eq(mailSendJobs.run, run)))
      .returning({ id: mailSendJobs.id });
    if (!locked) return { kind: "stale" };
    const [row] = await queryRows<{ recipients: string }>(
      tx,
      sql`delete from mail_send_job_chunks where send_job_id = ${job.id} and seq = (
            select seq from mail_send_job_chunks where send_job_id = ${job.id} order by seq limit 1 for update skip locked)
          returning recipients`,
    );
    if (!row) return { kind: "exhausted" };
    const entries = JSON.parse(row.recipients) as ChunkEntry[];
    if (entries.length > size) {
      await tx.insert(mailSendJobChunks).values({ sendJobId: job.id, recipients: JSON.stringify(entries.slice(size)) });
      entries.length = size;
    }
    const ids = sql.param(entries.map((e) => e[0]));
    // The count, not the ids: answering 500 rows costs more than the update itself.
    const [marked] = await queryRows<{ count: number }>(
      tx,
      sql`with marked as (update mail_messages set status = 'sending' where id = any(${ids}::uuid[]) and status = 'pending' returning 1)
          select count(*)::int as count from marked`,
    );
    let claimed = entries;
    if (marked?.count !== entries.length) {
      // Some were no longer pending (a cancel raced the claim). The row was this claim's alone, so its
      // messages now `sending` are exactly the ones just marked.
      const sending = await queryRows<{ id: string }>(tx, sql`select id from mail_messages where id = any(${ids}::uuid[]) and status = 'sending'`);
      const still = new Set(sending.map((m) => m.id));
      claimed = entries.filter((e) => still.has(e[0]));
    }
    return { kind: "claimed", rows: claimed.map(([messageId, email, name, data]): BatchRecipient => ({ messageId, email, name, data })) };
  });
}

/**
 * Writes each result (from `sending` only) with its send event, and the job's counters, in one statement
 * (data-modifying CTEs run together, atomically): the messages updated, one event per message updated,
 * the counters moved by what was updated.
 */
async function recordBatch(deps: EngineDeps, job: BatchJob, results: readonly Result[]): Promise<Pick<SendJobRow, "status" | "pending" | "run">> {
  const now = deps.clock.now();
  const [row] = await queryRows<{ status: SendJobRow["status"]; pending: number; run: number; accepted: number }>(
    deps.db,
    sql`with v as (
          select * from unnest(${sql.param(results.map((r) => r.messageId))}::uuid[], ${sql.param(results.map((r) => r.status))}::text[],
                               ${sql.param(results.map((r) => r.providerMessageId))}::text[], ${sql.param(results.map((r) => r.error))}::text[],
                               ${sql.param(results.map((r) => r.subject))}::text[], ${sql.param(results.map(() => timeOrderedUuid()))}::uuid[])
                   as v(id, status, provider_message_id, error, subject, event_id)
        ),
        recorded as (
          update mail_messages m
          set status = v.status, provider_message_id = v.provider_message_id, error = v.error, subject = v.subject,
              accepted_at = case when v.status = 'accepted' then ${now}::timestamptz else m.accepted_at end
          from v
          where m.id = v.id and m.status = 'sending'
          returning m.id, v.status, v.error, v.event_id
        ),
        events as (
          insert into mail_message_events (id, message_id, customer_id, type, occurred_at, identity, details)
          select event_id, id, ${job.customerId}, status, ${now}::timestamptz, 'send:' || status,
                 case when error is null then '{}'::jsonb else jsonb_build_object('reason', error) end
          from recorded
          on conflict do nothing
        ),
        counts as (
          select count(*) filter (where status = 'accepted') as accepted, count(*) filter (where status = 'suppressed') as suppressed,
                 count(*) filter (where status = 'invalid') as invalid, count(*) filter (where status = 'failed') as failed,
                 count(*) filter (where status = 'unknown') as unknown, count(*) as recorded
          from recorded
        )
        update mail_send_jobs j
        set accepted = j.accepted + c.accepted, suppressed = j.suppressed + c.suppressed, invalid = j.invalid + c.invalid,
            failed = j.failed + c.failed, unknown = j.unknown + c.unknown, pending = j.pending - c.recorded,
            batches_completed = j.batches_completed + least(c.recorded, 1), last_progress_at = ${now}::timestamptz, updated_at = ${now}::timestamptz
        from counts c
        where j.id = ${job.id}
        returning j.status, j.pending, j.run, c.accepted::int as accepted`,
  );
  if (!row) throw new Error("send job vanished while recording a batch");
  if (job.mode === "live") noteAcceptedLive(job.customerId, now, row.accepted);
  return { status: row.status, pending: row.pending, run: row.run };
}

/** The send outcome as a message event (`accepted`, `suppressed`, …), as the transactional send writes it. */
async function insertSendEvents(db: Database, customerId: string, events: readonly { messageId: string; status: string; error: string | null }[], now: Date): Promise<void> {
  if (events.length === 0) return;
  await db.execute(sql`insert into mail_message_events (id, message_id, customer_id, type, occurred_at, identity, details)
      select v.id, v.message_id, ${customerId}, v.type, ${now}, 'send:' || v.type, v.details::jsonb
      from unnest(${sql.param(events.map(() => timeOrderedUuid()))}::uuid[], ${sql.param(events.map((e) => e.messageId))}::uuid[],
                  ${sql.param(events.map((e) => e.status))}::text[], ${sql.param(events.map((e) => JSON.stringify(e.error === null ? {} : { reason: e.error })))}::text[])
           as v(id, message_id, type, details)
      on conflict do nothing`);
}

async function pauseJob(deps: EngineDeps, job: BatchJob, reason: NonNullable<SendJobRow["pauseReason"]>): Promise<void> {
  const now = deps.clock.now();
  const [paused] = await deps.db
    .update(mailSendJobs)
    .set({ status: "paused", pauseReason: reason, updatedAt: now })
    .where(and(eq(mailSendJobs.id, job.id), eq(mailSendJobs.status, "running"), eq(mailSendJobs.run, job.run)))
    .returning({ id: mailSendJobs.id });
  if (paused) deps.logger.info("send job paused", { send_job_id: job.id, reason });
}

/** What a job keeps only while it can still send: the addresses and data, and the duplicate set. */
async function deleteTransient(tx: Database, jobId: string): Promise<void> {
  await tx.delete(mailSendJobChunks).where(eq(mailSendJobChunks.sendJobId, jobId));
  await tx.delete(mailSendJobAddressSets).where(eq(mailSendJobAddressSets.sendJobId, jobId));
}

/**
 * Ends the job with its unsent recipients `failed` (`error`), deleting what is left of the addresses.
 * The caller has moved the job to its final status in the same transaction.
 */
export async function releaseUnsent(tx: Database, jobId: string, error: string): Promise<SendJobRow | undefined> {
  const unsent = await tx
    .update(mailMessages)
    .set({ status: "failed", error })
    .where(and(eq(mailMessages.sendJobId, jobId), eq(mailMessages.status, "pending")))
    .returning({ id: mailMessages.id });
  await deleteTransient(tx, jobId);
  const [row] = await tx
    .update(mailSendJobs)
    .set({ failed: sql`${mailSendJobs.failed} + ${unsent.length}`, pending: sql`${mailSendJobs.pending} - ${unsent.length}` })
    .where(eq(mailSendJobs.id, jobId))
    .returning();
  return row;
}

/** running|paused → failed: the template cannot render or the provider refused the job as a whole. */
async function failJob(deps: EngineDeps, job: BatchJob, error: string): Promise<void> {
  const now = deps.clock.now();
  const failed = await deps.db.transaction(async (tx) => {
    const [row] = await tx
      .update(mailSendJobs)
      .set({ status: "failed", error, pauseReason: null, completedAt: now, updatedAt: now })
      .where(and(eq(mailSendJobs.id, job.id), inArray(mailSendJobs.status, ["running", "paused"])))
      .returning({ id: mailSendJobs.id });
    return row ? releaseUnsent(tx, job.id, error) : undefined;
  });
  if (failed) deps.logger.warn("send job failed", { send_job_id: job.id, error });
}

/**
 * running|paused → completed when no recipient is pending (a paused job whose last batch came back has
 * nothing left to resume). The addresses are gone; `job.completed` is written with the state change and
 * published after the commit.
 */
async function completeJob(deps: EngineDeps, jobId: string): Promise<void> {
  const now = deps.clock.now();
  const deliveries = await deps.db.transaction(async (tx) => {
    const [done] = await tx
      .update(mailSendJobs)
      .set({ status: "completed", pauseReason: null, completedAt: now, updatedAt: now })
      .where(and(eq(mailSendJobs.id, jobId), inArray(mailSendJobs.status, ["running", "paused"]), eq(mailSendJobs.pending, 0)))
      .returning();
    if (!done) return null;
    await deleteTransient(tx, jobId);
    return enqueueMailEvent(tx, now, done.customerId, "job.completed", {
      send_job_id: done.id,
      recipients: { total: done.total, accepted: done.accepted, suppressed: done.suppressed },
    });
  });
  if (deliveries === null) return;
  deps.logger.info("send job completed", { send_job_id: jobId });
  await publishDeliveries(deps, deliveries);
}

export type RecoveryResult = { started: number; resumed: number; completed: number; unknown: number };

/**
 * Finds work that lost its queue message. Scheduled jobs whose time has come start. Running and paused
 * jobs without progress for `stalledForMs` (0 when the embedded server starts, where nothing else can be
 * in flight) get their `sending` messages marked `unknown` (never sent again); a running one continues
 * under a new run (new lanes; descriptors of the old run do nothing), and a job with nothing pending
 * completes. `customerId` narrows the sweep to one account.
 */
export async function recoverSendJobs(deps: EngineDeps, options: { stalledForMs: number; customerId?: string }): Promise<RecoveryResult> {
  const { db } = deps;
  const now = deps.clock.now();
  const ofCustomer = options.customerId ? eq(mailSendJobs.customerId, options.customerId) : undefined;
  const result: RecoveryResult = { started: 0, resumed: 0, completed: 0, unknown: 0 };

  const due = await db
    .select({ id: mailSendJobs.id, customerId: mailSendJobs.customerId })
    .from(mailSendJobs)
    .where(and(eq(mailSendJobs.status, "scheduled"), lte(mailSendJobs.scheduledAt, now), ofCustomer));
  for (const job of due) if (await startDueJob(deps, job.id, job.customerId)) result.started++;

  const stalledBefore = new Date(now.getTime() - options.stalledForMs);
  const stalledWhere = (id?: string) =>
    and(
      id ? eq(mailSendJobs.id, id) : ofCustomer,
      inArray(mailSendJobs.status, ["running", "paused"]),
      or(isNull(mailSendJobs.lastProgressAt), lte(mailSendJobs.lastProgressAt, stalledBefore)),
    );
  const stalled = await db.select({ id: mailSendJobs.id }).from(mailSendJobs).where(stalledWhere());
  for (const { id } of stalled) {
    const recovered = await db.transaction(async (tx) => {
      const [locked] = await tx
        .update(mailSendJobs)
        .set({ run: sql`case when ${mailSendJobs.status} = 'running' then ${mailSendJobs.run} + 1 else ${mailSendJobs.run} end`, lastProgressAt: now, updatedAt: now })
        .where(stalledWhere(id))
        .returning({ customerId: mailSendJobs.customerId });
      if (!locked) return null;
      const lost = await tx
        .update(mailMessages)
        .set({ status: "unknown", error: LOST_IN_FLIGHT })
        .where(and(eq(mailMessages.sendJobId, id), eq(mailMessages.status, "sending")))
        .returning({ id: mailMessages.id });
      await insertSendEvents(tx, locked.customerId, lost.map((m) => ({ messageId: m.id, status: "unknown", error: LOST_IN_FLIGHT })), now);
      const [row] = await tx
        .update(mailSendJobs)
        .set({ unknown: sql`${mailSendJobs.unknown} + ${lost.length}`, pending: sql`${mailSendJobs.pending} - ${lost.length}` })
        .where(eq(mailSendJobs.id, id))
        .returning();
      return row ? { row, lost: lost.length } : null;
    });
    if (!recovered) continue;
    result.unknown += recovered.lost;
    if (recovered.lost > 0) deps.logger.warn("send job: in-flight messages marked unknown", { send_job_id: id, unknown: recovered.lost });
    if (recovered.row.pending === 0) {
      await completeJob(deps, id);
      result.completed++;
    } else if (recovered.row.status === "running") {
      await publishLanes(deps, recovered.row);
      result.resumed++;
    }
  }
  return result;
}

/**
 * Start-up of the embedded server (one process owns the database): nothing can be in flight, so every
 * `sending` message, of a job or a transactional send, lost its provider answer and becomes `unknown`,
 * and running jobs get new lanes. Never run this where other processes may be sending (Vercel): the
 * `send-jobs-sweep` cron covers production with its stall time.
 */
export async function recoverAfterRestart(deps: EngineDeps): Promise<RecoveryResult> {
  const now = deps.clock.now();
  const transactional = await deps.db
    .update(mailMessages)
    .set({ status: "unknown", error: LOST_IN_FLIGHT })
    .where(and(isNull(mailMessages.sendJobId), eq(mailMessages.status, "sending")))
    .returning({ id: mailMessages.id, customerId: mailMessages.customerId });
  for (const message of transactional) {
    await insertSendEvents(deps.db, message.customerId, [{ messageId: message.id, status: "unknown", error: LOST_IN_FLIGHT }], now);
  }
  const result = await recoverSendJobs(deps, { stalledForMs: 0 });
  return { ...result, unknown: result.unknown + transactional.length };
}
