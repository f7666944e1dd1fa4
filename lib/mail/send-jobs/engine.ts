import { and, eq, getTableColumns, sql } from "drizzle-orm";
import { z } from "zod";
import { ForbiddenError } from "../../core/errors";
import type { Database } from "../../db/client";
import { mailMessageEvents, mailMessages, mailSendJobChunks, mailSendJobs, mailSettings } from "../../db/schema";
import type { MailDeps } from "../app";
import { POSTMARK_TEST_TOKEN, type PostmarkProvider, type SendOutcome } from "../provider/postmark";
import { requireReadyProvider } from "../setup/provider-config";
import { lookupSuppressions } from "../suppressions/mirror";
import { monthlyAcceptedLive, noteAcceptedLive } from "../usage/meter";
import { createBatchWriter, type BatchRecipient, type BatchWriter } from "./batch-payload";
import { timeOrderedUuid } from "./ids";
import { BATCH_SIZE, type SendJobRow } from "./model";
import { publishBatchReconcile, registerReconcileWorkers } from "./reconcile";
import type { ChunkEntry } from "./recipients";
import { queryRows } from "./sql";
import {
  BatchDescriptor,
  completeJob,
  failJob,
  LANES,
  pauseJob,
  publishBatch,
  publishScheduledStart,
  SEND_JOB_BATCH_TOPIC,
  SEND_JOB_START_TOPIC,
  startDueJob,
  type EngineDeps,
} from "./transitions";

/*
 * The sending engine. Start publishes batch descriptors (job, run, batch number; never HTML) to the queue:
 * QStash in production, the in-process dispatcher embedded. Up to LANES batches of a job are in flight at
 * once; each batch, when recorded, publishes the one LANES numbers further, so memory stays flat in the
 * number of recipients. A batch:
 *   1. re-checks the job (running, same run), the access switch, provider readiness and the monthly limit
 *      (any of those failing pauses the job; start resumes it);
 *   2. claims up to 500 recipients in one transaction: the next unclaimed row of the job's recipients gets
 *      a fresh batch id and its messages become `sending`;
 *   3. checks the newsletter-stream suppression mirror for the whole batch in one query (suppressed: no
 *      provider call), personalises and sends ONE `/email/batch` on the broadcast stream, every message
 *      tagged with the batch id in `Metadata`;
 *   4. records every result and the job counters in one statement, from `sending` only, and deletes the
 *      row of addresses, keeping only the recipients whose outcome is `unknown`.
 * Exactly once towards the provider: a message is `sending` before the call and only a recorded answer or
 * reconciliation moves it on. A batch delivered twice claims other recipients (or none). A message whose
 * outcome is in doubt (no answer, or the worker died: recovery marks it `unknown`) keeps its address until
 * reconciliation has asked Postmark what the batch delivered: what Postmark has is `accepted`, what it still
 * does not have after the grace period is `pending` again and sent in a later batch (./reconcile.ts). No
 * pending recipient and none in doubt left: the job completes and `job.completed` is emitted.
 */

/** After a batch whose outcome was unknown throughout (provider down), the next one waits this long. */
const UNKNOWN_BACKOFF_SECONDS = 30;
const SUPPRESSED_ON_STREAM = "The address is suppressed on the newsletter stream.";

const StartDescriptor = z.object({ job_id: z.uuid(), customer_id: z.uuid() });

export function registerSendJobWorkers(deps: MailDeps, postmark: PostmarkProvider): void {
  deps.queue.register(SEND_JOB_BATCH_TOPIC, (body) => runSendJobBatch(deps, postmark, body));
  deps.queue.register(SEND_JOB_START_TOPIC, (body) => runScheduledStart(deps, body));
  registerReconcileWorkers(deps, postmark);
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

type Claim = { kind: "stale" } | { kind: "exhausted" } | { kind: "claimed"; batchId: string; rows: BatchRecipient[] };
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

  let claim: Claim = { kind: "claimed", batchId: "", rows: [] };
  // A claimed row can hold nothing sendable any more (a cancel raced it); take the next one then.
  while (claim.kind === "claimed" && claim.rows.length === 0) claim = await claimBatch(db, job, descriptor.run, size, deps.clock.now());
  if (claim.kind === "stale") return;
  if (claim.kind === "exhausted") return completeJob(deps, job.id);
  const { rows: recipients, batchId } = claim;

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
    const { body, subjects } = writer.write(toSend, batchId);
    outcomes = await postmark.sendBatchJson(serverToken, body, toSend.length);
    toSend.forEach((recipient, i) => results.push(resultOf(recipient.messageId, subjects[i] ?? "", outcomes[i])));
  }

  const recorded = await recordBatch(deps, job, batchId, recipients, results);
  if (results.some((r) => r.status === "unknown")) await publishBatchReconcile(deps, { job_id: job.id, customer_id: job.customerId, batch_id: batchId });
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
 * Takes the next unclaimed row of recipients, if the job is still running in this run. The row gets a
 * fresh batch id and the claim time, and its messages become `sending`, in one transaction: a crash after
 * the commit leaves in-flight messages (recovered as `unknown`, then reconciled by the batch id) and never
 * a recipient sent twice. Only `size` recipients are taken when the monthly limit leaves less than a row;
 * the rest goes back as a row of its own. The job row is locked for the claim, so lanes of one job claim
 * in turn.
 */
async function claimBatch(db: Database, job: BatchJob, run: number, size: number, now: Date): Promise<Claim> {
  return db.transaction(async (tx) => {
    const [locked] = await tx
      .update(mailSendJobs)
      .set({ lastProgressAt: now })
      .where(and(eq(mailSendJobs.id, job.id), eq(mailSendJobs.status, "running"), eq(mailSendJobs.run, run)))
      .returning({ id: mailSendJobs.id });
    if (!locked) return { kind: "stale" };
    const batchId = crypto.randomUUID();
    const [row] = await queryRows<{ seq: number; recipients: string }>(
      tx,
      sql`update ${mailSendJobChunks} set batch_id = ${batchId}, claimed_at = ${now}
          where send_job_id = ${job.id} and seq = (
            select seq from ${mailSendJobChunks} where send_job_id = ${job.id} and batch_id is null order by seq limit 1 for update skip locked)
          returning seq, recipients`,
    );
    if (!row) return { kind: "exhausted" };
    const entries = JSON.parse(row.recipients) as ChunkEntry[];
    if (entries.length > size) {
      await tx.insert(mailSendJobChunks).values({ sendJobId: job.id, recipients: JSON.stringify(entries.slice(size)) });
      entries.length = size;
      await tx.update(mailSendJobChunks).set({ recipients: JSON.stringify(entries) }).where(and(eq(mailSendJobChunks.sendJobId, job.id), eq(mailSendJobChunks.seq, row.seq)));
    }
    const ids = sql.param(entries.map((e) => e[0]));
    // The count, not the ids: answering 500 rows costs more than the update itself.
    const [marked] = await queryRows<{ count: number }>(
      tx,
      sql`with marked as (update ${mailMessages} set status = 'sending' where id = any(${ids}::uuid[]) and status = 'pending' returning 1)
          select count(*)::int as count from marked`,
    );
    let claimed = entries;
    if (marked?.count !== entries.length) {
      // Some were no longer pending (a cancel raced the claim). The row was this claim's alone, so its
      // messages now `sending` are exactly the ones just marked.
      const sending = await queryRows<{ id: string }>(tx, sql`select id from ${mailMessages} where id = any(${ids}::uuid[]) and status = 'sending'`);
      const still = new Set(sending.map((m) => m.id));
      claimed = entries.filter((e) => still.has(e[0]));
    }
    return { kind: "claimed", batchId, rows: claimed.map(([messageId, email, name, data]): BatchRecipient => ({ messageId, email, name, data })) };
  });
}

/**
 * Writes each result with its send event, the job's counters and what is left of the batch's row of
 * addresses in one statement (data-modifying CTEs run together, atomically): the messages updated, one
 * event per message updated, the counters moved by what was updated; the row is deleted, or keeps only
 * the recipients whose outcome is `unknown` (reconciliation may have to send them again). A result is
 * written from `sending`, or from `unknown` when recovery gave the worker up for dead but its definite
 * answer came after all.
 */
async function recordBatch(deps: EngineDeps, job: BatchJob, batchId: string, recipients: readonly BatchRecipient[], results: readonly Result[]): Promise<Pick<SendJobRow, "status" | "pending" | "run">> {
  const now = deps.clock.now();
  const inDoubt = new Set(results.filter((r) => r.status === "unknown").map((r) => r.messageId));
  const ofBatch = and(eq(mailSendJobChunks.sendJobId, job.id), eq(mailSendJobChunks.batchId, batchId));
  const kept = recipients.filter((r) => inDoubt.has(r.messageId)).map((r): ChunkEntry => [r.messageId, r.email, r.name, r.data]);
  const rowStep = kept.length === 0 ? sql`delete from ${mailSendJobChunks} where ${ofBatch}` : sql`update ${mailSendJobChunks} set recipients = ${JSON.stringify(kept)} where ${ofBatch}`;
  const [row] = await queryRows<{ status: SendJobRow["status"]; pending: number; run: number; accepted: number }>(
    deps.db,
    sql`with v as (
          select * from unnest(${sql.param(results.map((r) => r.messageId))}::uuid[], ${sql.param(results.map((r) => r.status))}::text[],
                               ${sql.param(results.map((r) => r.providerMessageId))}::text[], ${sql.param(results.map((r) => r.error))}::text[],
                               ${sql.param(results.map((r) => r.subject))}::text[], ${sql.param(results.map(() => timeOrderedUuid()))}::uuid[])
                   as v(id, status, provider_message_id, error, subject, event_id)
        ),
        recorded as (
          update ${mailMessages} m
          set status = v.status, provider_message_id = v.provider_message_id, error = v.error, subject = v.subject,
              accepted_at = case when v.status = 'accepted' then ${now}::timestamptz else m.accepted_at end
          from v, ${mailMessages} prior
          where m.id = v.id and prior.id = v.id and (prior.status = 'sending' or (prior.status = 'unknown' and v.status <> 'unknown'))
          returning m.id, v.status, v.error, v.event_id, prior.status as was
        ),
        events as (
          insert into ${mailMessageEvents} (id, message_id, customer_id, type, occurred_at, identity, details)
          select event_id, id, ${job.customerId}, status, ${now}::timestamptz, 'send:' || status,
                 case when error is null then '{}'::jsonb else jsonb_build_object('reason', error) end
          from recorded
          on conflict do nothing
        ),
        batch_row as (${rowStep} returning 1),
        counts as (
          select count(*) filter (where status = 'accepted') as accepted, count(*) filter (where status = 'suppressed') as suppressed,
                 count(*) filter (where status = 'invalid') as invalid, count(*) filter (where status = 'failed') as failed,
                 count(*) filter (where status = 'unknown') - count(*) filter (where was = 'unknown') as unknown,
                 count(*) filter (where was = 'sending') as sent, count(*) as recorded
          from recorded
        )
        update ${mailSendJobs} j
        set accepted = j.accepted + c.accepted, suppressed = j.suppressed + c.suppressed, invalid = j.invalid + c.invalid,
            failed = j.failed + c.failed, unknown = j.unknown + c.unknown, pending = j.pending - c.sent,
            batches_completed = j.batches_completed + least(c.recorded, 1), last_progress_at = ${now}::timestamptz, updated_at = ${now}::timestamptz
        from counts c
        where j.id = ${job.id}
        returning j.status, j.pending, j.run, c.accepted::int as accepted`,
  );
  if (!row) throw new Error("send job vanished while recording a batch");
  if (job.mode === "live") noteAcceptedLive(job.customerId, now, row.accepted);
  return { status: row.status, pending: row.pending, run: row.run };
}
