import { and, eq, inArray, isNotNull, isNull, lte, notExists, sql } from "drizzle-orm";
import { z } from "zod";
import type { CoreDeps } from "../../core/context";
import type { Database } from "../../db/client";
import { mailMessageEvents, mailMessages, mailSendJobAddressSets, mailSendJobChunks, mailSendJobs } from "../../db/schema";
import { enqueueMailEvent, publishDeliveries } from "../webhooks/emit";
import { timeOrderedUuid } from "./ids";
import { BATCH_SIZE, type SendJobRow } from "./model";
import { cols } from "../../db/sql";

/*
 * A send job's state changes and the queue messages that drive it. Every change is a conditional update
 * (`… WHERE status = …`), so two workers racing for the same change make it once.
 */

export const SEND_JOB_BATCH_TOPIC = "send-job-batch";
export const SEND_JOB_START_TOPIC = "send-job-start";
/** Batches of one job in flight at once: overlaps the provider call of one with the bookkeeping of another. */
export const LANES = 3;
/** QStash's longest delay; a job scheduled further out is re-published on arrival (and the cron starts it). */
const MAX_DELAY_SECONDS = 7 * 24 * 3600;

export const CANCELLED = "cancelled";

export const BatchDescriptor = z.object({
  job_id: z.uuid(),
  customer_id: z.uuid(),
  run: z.number().int(),
  batch: z.number().int().positive(),
  /** Calls of this lane in a row that the provider turned away or left unanswered: the back-off's exponent. */
  backoff: z.number().int().min(0).max(64).optional(),
});
export type BatchDescriptor = z.infer<typeof BatchDescriptor>;

type QueueDeps = Pick<CoreDeps, "queue" | "clock">;
export type EngineDeps = Pick<CoreDeps, "db" | "clock" | "queue" | "logger" | "config" | "secrets">;

type JobRef = Pick<SendJobRow, "id" | "customerId" | "run" | "pending">;

/** Lanes 1..n of a run; a job with few recipients gets as many lanes as it has batches. */
export async function publishLanes(deps: QueueDeps, job: JobRef): Promise<void> {
  const lanes = Math.min(LANES, Math.max(1, Math.ceil(job.pending / BATCH_SIZE)));
  for (let batch = 1; batch <= lanes; batch++) await publishBatch(deps, { job_id: job.id, customer_id: job.customerId, run: job.run, batch });
}

export async function publishBatch(deps: QueueDeps, descriptor: BatchDescriptor, delaySeconds = 0): Promise<void> {
  await deps.queue.publish(SEND_JOB_BATCH_TOPIC, descriptor, {
    deduplicationId: `send-job-batch-${descriptor.job_id}-${descriptor.run}-${descriptor.batch}`,
    // Fair sharing between customers: a customer's batches (all its jobs together) run LANES at a time, and
    // the queue serves the customers in turn (QStash Flow Control in production, round-robin embedded).
    flowControl: { key: `send-batches-${descriptor.customer_id}`, parallelism: LANES },
    ...(delaySeconds > 0 ? { delaySeconds } : {}),
  });
}

export async function publishScheduledStart(deps: QueueDeps, job: Pick<SendJobRow, "id" | "customerId" | "scheduledAt">): Promise<void> {
  const due = job.scheduledAt?.getTime() ?? 0;
  const delaySeconds = Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.ceil((due - deps.clock.now().getTime()) / 1000)));
  await deps.queue.publish(
    SEND_JOB_START_TOPIC,
    { job_id: job.id, customer_id: job.customerId },
    { delaySeconds, deduplicationId: `send-job-start-${job.id}-${due}` },
  );
}

/** scheduled → running once `scheduled_at` has come, with the lanes of its first run. */
export async function startDueJob(deps: EngineDeps, id: string, customerId: string): Promise<boolean> {
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

/**
 * A running job continues under a new run: descriptors of the old run do nothing once their batch is
 * recorded, and fresh lanes take the remaining recipients. Used when recipients became pending again
 * (reconciliation) or the lanes were lost (recovery).
 */
export async function resumeUnderNewRun(deps: EngineDeps, jobId: string): Promise<boolean> {
  const now = deps.clock.now();
  const [job] = await deps.db
    .update(mailSendJobs)
    .set({ run: sql`${mailSendJobs.run} + 1`, lastProgressAt: now, updatedAt: now })
    .where(and(eq(mailSendJobs.id, jobId), eq(mailSendJobs.status, "running")))
    .returning();
  if (!job) return false;
  if (job.pending > 0) await publishLanes(deps, job);
  else await completeJob(deps, job.id);
  return true;
}

/** The send outcome as a message event (`accepted`, `unknown`, …), as the transactional send writes it. */
export async function insertSendEvents(
  db: Database,
  customerId: string,
  events: readonly { messageId: string; status: string; error: string | null }[],
  at: Date,
): Promise<void> {
  if (events.length === 0) return;
  const e = mailMessageEvents;
  await db.execute(sql`insert into ${e} (${cols(e.id, e.messageId, e.customerId, e.type, e.occurredAt, e.identity, e.details)})
      select v.id, v.message_id, ${customerId}, v.type, ${at}, 'send:' || v.type, v.details::jsonb
      from unnest(${sql.param(events.map(() => timeOrderedUuid()))}::uuid[], ${sql.param(events.map((e) => e.messageId))}::uuid[],
                  ${sql.param(events.map((e) => e.status))}::text[], ${sql.param(events.map((e) => JSON.stringify(e.error === null ? {} : { reason: e.error })))}::text[])
           as v(id, message_id, type, details)
      on conflict do nothing`);
}

export async function pauseJob(deps: EngineDeps, job: Pick<SendJobRow, "id" | "run">, reason: NonNullable<SendJobRow["pauseReason"]>): Promise<void> {
  const now = deps.clock.now();
  const [paused] = await deps.db
    .update(mailSendJobs)
    .set({ status: "paused", pauseReason: reason, updatedAt: now })
    .where(and(eq(mailSendJobs.id, job.id), eq(mailSendJobs.status, "running"), eq(mailSendJobs.run, job.run)))
    .returning({ id: mailSendJobs.id });
  if (paused) deps.logger.info("send job paused", { send_job_id: job.id, reason });
}

/**
 * What a job keeps only while it can still send: the addresses and data, and the duplicate set. Rows of
 * a batch whose outcome is still in doubt stay (reconciliation may have to send them again, or needs them
 * to know whom it settles) unless `inDoubtToo`.
 */
async function deleteTransient(tx: Database, jobId: string, inDoubtToo: boolean): Promise<void> {
  await tx.delete(mailSendJobChunks).where(and(eq(mailSendJobChunks.sendJobId, jobId), inDoubtToo ? undefined : isNull(mailSendJobChunks.batchId)));
  await tx.delete(mailSendJobAddressSets).where(eq(mailSendJobAddressSets.sendJobId, jobId));
}

/**
 * Ends the job with its unsent recipients `failed` (`error`), deleting what is left of the addresses
 * (but those of batches in doubt: reconciliation settles them later). The caller has moved the job to its
 * final status in the same transaction.
 */
export async function releaseUnsent(tx: Database, jobId: string, error: string): Promise<SendJobRow | undefined> {
  const unsent = await tx
    .update(mailMessages)
    .set({ status: "failed", error })
    .where(and(eq(mailMessages.sendJobId, jobId), eq(mailMessages.status, "pending")))
    .returning({ id: mailMessages.id });
  await deleteTransient(tx, jobId, false);
  const [row] = await tx
    .update(mailSendJobs)
    .set({ failed: sql`${mailSendJobs.failed} + ${unsent.length}`, pending: sql`${mailSendJobs.pending} - ${unsent.length}` })
    .where(eq(mailSendJobs.id, jobId))
    .returning();
  return row;
}

/** running|paused → failed: the template cannot render or the provider refused the job as a whole. */
export async function failJob(deps: EngineDeps, job: Pick<SendJobRow, "id">, error: string): Promise<void> {
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
 * running|paused → completed when no recipient is pending and none is in doubt: no row of addresses is
 * claimed any more (a batch in flight or in doubt keeps its row until reconciliation has settled it). The
 * job's `unknown` then counts only messages that ended `unknown` for good (./reconcile.ts). The addresses
 * are gone; `job.completed` is written with the state change and published after the commit.
 */
export async function completeJob(deps: EngineDeps, jobId: string): Promise<void> {
  const now = deps.clock.now();
  const deliveries = await deps.db.transaction(async (tx) => {
    const [done] = await tx
      .update(mailSendJobs)
      .set({ status: "completed", pauseReason: null, completedAt: now, updatedAt: now })
      .where(
        and(
          eq(mailSendJobs.id, jobId),
          inArray(mailSendJobs.status, ["running", "paused"]),
          eq(mailSendJobs.pending, 0),
          notExists(
            tx
              .select({ one: sql`1` })
              .from(mailSendJobChunks)
              .where(and(eq(mailSendJobChunks.sendJobId, jobId), isNotNull(mailSendJobChunks.batchId))),
          ),
        ),
      )
      .returning();
    if (!done) return null;
    await deleteTransient(tx, jobId, true);
    return enqueueMailEvent(tx, now, done.customerId, "job.completed", {
      send_job_id: done.id,
      recipients: { total: done.total, accepted: done.accepted, suppressed: done.suppressed },
    });
  });
  if (deliveries === null) return;
  deps.logger.info("send job completed", { send_job_id: jobId });
  await publishDeliveries(deps, deliveries);
}
