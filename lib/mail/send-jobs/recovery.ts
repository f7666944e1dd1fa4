import { and, eq, inArray, isNotNull, isNull, lte, or, sql } from "drizzle-orm";
import { mailMessages, mailSendJobChunks, mailSendJobs } from "../../db/schema";
import { reconcileBatch, reconcileMessage, type ReconcileDeps, type ReconcileOutcome } from "./reconcile";
import type { ChunkEntry } from "./recipients";
import { completeJob, insertSendEvents, resumeUnderNewRun, startDueJob, type EngineDeps } from "./transitions";

/*
 * Work that lost its worker or its queue message: scheduled jobs whose time has come, provider calls whose
 * worker died (`sending` for longer than any call can take: they become `unknown`), messages in doubt
 * (reconciled with Postmark, ./reconcile.ts), and running jobs whose lanes were lost.
 */

/** A running job without a claim or record for this long has lost its lanes (a worker died). */
export const STALL_MS = 5 * 60_000;
/**
 * A provider call gives up after 20 s and its answer is recorded within moments; a message `sending` for
 * this long lost its worker.
 */
export const IN_FLIGHT_LIMIT_MS = 2 * 60_000;
/** Batches and transactional mails reconciled per sweep; the next sweep takes the rest. */
const RECONCILE_PER_SWEEP = 200;

const LOST_IN_FLIGHT = "The worker stopped while the provider call was in flight; what Postmark received is being reconciled.";

export type RecoveryResult = { started: number; resumed: number; completed: number; unknown: number; reconciled: number; waiting: number; unavailable: number };

type Options = {
  /** A running job without progress for this long gets new lanes. */
  stalledForMs: number;
  /** A message `sending` for this long lost its worker. */
  inFlightForMs: number;
  customerId?: string;
};

/**
 * One sweep (cron `send-jobs-sweep` every minute in production; every start of the embedded server with
 * both limits 0, where nothing else can be in flight).
 */
export async function recoverSendJobs(deps: ReconcileDeps, options: Options): Promise<RecoveryResult> {
  const { db } = deps;
  const now = deps.clock.now();
  const result: RecoveryResult = { started: 0, resumed: 0, completed: 0, unknown: 0, reconciled: 0, waiting: 0, unavailable: 0 };
  const ofCustomer = options.customerId ? eq(mailSendJobs.customerId, options.customerId) : undefined;
  const count = (outcome: ReconcileOutcome) => {
    if (outcome === "settled") result.reconciled++;
    else if (outcome === "waiting") result.waiting++;
    else if (outcome === "unavailable") result.unavailable++;
  };

  const due = await db
    .select({ id: mailSendJobs.id, customerId: mailSendJobs.customerId })
    .from(mailSendJobs)
    .where(and(eq(mailSendJobs.status, "scheduled"), lte(mailSendJobs.scheduledAt, now), ofCustomer));
  for (const job of due) if (await startDueJob(deps, job.id, job.customerId)) result.started++;

  // Batches claimed long enough ago: their `sending` messages lost the worker; then every batch in doubt.
  const lostBefore = new Date(now.getTime() - options.inFlightForMs);
  const claims = await db
    .select({
      jobId: mailSendJobChunks.sendJobId,
      batchId: mailSendJobChunks.batchId,
      customerId: mailSendJobs.customerId,
      recipients: mailSendJobChunks.recipients,
    })
    .from(mailSendJobChunks)
    .innerJoin(mailSendJobs, eq(mailSendJobs.id, mailSendJobChunks.sendJobId))
    .where(and(isNotNull(mailSendJobChunks.batchId), lte(mailSendJobChunks.claimedAt, lostBefore), ofCustomer))
    .orderBy(mailSendJobChunks.claimedAt)
    .limit(RECONCILE_PER_SWEEP);
  for (const claim of claims) {
    if (!claim.batchId) continue;
    const ids = (JSON.parse(claim.recipients) as ChunkEntry[]).map((e) => e[0]);
    result.unknown += await markLost(deps, claim.jobId, claim.customerId, ids, now);
    count(await reconcileBatch(deps, { job_id: claim.jobId, customer_id: claim.customerId, batch_id: claim.batchId }));
  }

  // Transactional mails: the same, one message at a time.
  const lostTransactional = await db
    .update(mailMessages)
    .set({ status: "unknown", error: LOST_IN_FLIGHT })
    .where(
      and(
        isNull(mailMessages.sendJobId),
        eq(mailMessages.status, "sending"),
        lte(mailMessages.createdAt, lostBefore),
        options.customerId ? eq(mailMessages.customerId, options.customerId) : undefined,
      ),
    )
    .returning({ id: mailMessages.id, customerId: mailMessages.customerId });
  for (const message of lostTransactional) {
    await insertSendEvents(db, message.customerId, [{ messageId: message.id, status: "unknown", error: LOST_IN_FLIGHT }], now);
  }
  result.unknown += lostTransactional.length;
  const transactionalInDoubt = await db
    .select({ id: mailMessages.id, customerId: mailMessages.customerId })
    .from(mailMessages)
    .where(
      and(isNull(mailMessages.sendJobId), eq(mailMessages.status, "unknown"), options.customerId ? eq(mailMessages.customerId, options.customerId) : undefined),
    )
    .limit(RECONCILE_PER_SWEEP);
  for (const message of transactionalInDoubt) count(await reconcileMessage(deps, { message_id: message.id, customer_id: message.customerId }));

  // Running jobs without progress lost their lanes: new ones take the remaining recipients.
  const stalledBefore = new Date(now.getTime() - options.stalledForMs);
  const stalled = await db
    .select({ id: mailSendJobs.id, pending: mailSendJobs.pending, status: mailSendJobs.status })
    .from(mailSendJobs)
    .where(
      and(
        ofCustomer,
        inArray(mailSendJobs.status, ["running", "paused"]),
        or(isNull(mailSendJobs.lastProgressAt), lte(mailSendJobs.lastProgressAt, stalledBefore)),
      ),
    );
  for (const job of stalled) {
    if (job.status === "running" && job.pending > 0) {
      if (await resumeUnderNewRun(deps, job.id)) result.resumed++;
    } else {
      await completeJob(deps, job.id);
      const [after] = await db.select({ status: mailSendJobs.status }).from(mailSendJobs).where(eq(mailSendJobs.id, job.id));
      if (after?.status === "completed") result.completed++;
    }
  }
  return result;
}

/** The batch's messages still `sending` lost their worker: `unknown`, with their events and the job's counters. */
async function markLost(deps: EngineDeps, jobId: string, customerId: string, ids: string[], now: Date): Promise<number> {
  return deps.db.transaction(async (tx) => {
    const lost = await tx
      .update(mailMessages)
      .set({ status: "unknown", error: LOST_IN_FLIGHT })
      .where(and(inArray(mailMessages.id, ids), eq(mailMessages.status, "sending")))
      .returning({ id: mailMessages.id });
    if (lost.length === 0) return 0;
    await insertSendEvents(
      tx,
      customerId,
      lost.map((m) => ({ messageId: m.id, status: "unknown", error: LOST_IN_FLIGHT })),
      now,
    );
    await tx
      .update(mailSendJobs)
      .set({ unknown: sql`${mailSendJobs.unknown} + ${lost.length}`, pending: sql`${mailSendJobs.pending} - ${lost.length}` })
      .where(eq(mailSendJobs.id, jobId));
    deps.logger.warn("send job: in-flight messages lost their worker; reconciling with the provider", { send_job_id: jobId, unknown: lost.length });
    return lost.length;
  });
}

/**
 * Start-up of the embedded server (one process owns the database): nothing can be in flight, so every
 * `sending` message lost its worker; it is reconciled at once, and running jobs get new lanes. Never run
 * this where other processes may be sending (Vercel): the `send-jobs-sweep` cron covers production with
 * its time limits.
 */
export async function recoverAfterRestart(deps: ReconcileDeps): Promise<RecoveryResult> {
  return recoverSendJobs(deps, { stalledForMs: 0, inFlightForMs: 0 });
}
