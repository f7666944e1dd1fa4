import { and, eq, inArray, isNotNull, isNull, lt, lte, ne, or, sql } from "drizzle-orm";
import { isDatabaseUnavailable } from "../../core/database-unavailable";
import { mailMessages, mailSendJobChunks, mailSendJobs } from "../../db/schema";
import { BATCH_LEASE_MS, lockMessagesInOrder } from "./batch-store";
import { reconcileBatch, reconcileMessage, UNKNOWN_FOR_GOOD, type ReconcileDeps, type ReconcileOutcome } from "./reconcile";
import { refreshBulkRequests } from "./bulk-requests";
import { lostCallEnded } from "./provider-health";
import { recheckDue } from "./late-truth";
import type { ChunkEntry } from "./recipients";
import { completeJob, insertSendEvents, resumeUnderNewRun, startDueJob, type EngineDeps } from "./transitions";

/*
 * Work that lost its worker or its queue message: scheduled jobs whose time has come, provider calls whose
 * worker died (`sending` for longer than any call can take: they become `unknown`), messages in doubt
 * (reconciled with Postmark, ./reconcile.ts), and running jobs whose lanes were lost.
 * A failure of one customer's work (its sealed credentials no longer open, say) is that customer's alone: it
 * is logged, the customer's remaining work waits for the next sweep and the other customers' goes on. The
 * database being unreachable is everyone's: it ends the sweep (the cron answers 503 and runs again).
 */

/** A running job without a claim or record for this long has lost its lanes (a worker died). */
export const STALL_MS = 5 * 60_000;
/**
 * A transactional provider call gives up after 20 s and its answer is recorded within moments; a
 * transactional mail `sending` for this long lost its worker. (A send job's batch has a lease instead,
 * renewed while its call is in flight: see `BATCH_LEASE_MS`.)
 */
export const IN_FLIGHT_LIMIT_MS = 2 * 60_000;
/** Batches and transactional mails reconciled per sweep; the next sweep takes the rest. */
const RECONCILE_PER_SWEEP = 200;

const LOST_IN_FLIGHT = "The worker stopped while the provider call was in flight; what Postmark received is being reconciled.";

/** What one sweep did; `skipped`: customers whose work failed this time (logged each). */
export type RecoveryResult = {
  started: number;
  resumed: number;
  completed: number;
  unknown: number;
  reconciled: number;
  waiting: number;
  unavailable: number;
  skipped: number;
};

type Options = {
  /** A running job without progress for this long gets new lanes. */
  stalledForMs: number;
  /** A transactional mail `sending` for this long lost its worker. */
  inFlightForMs: number;
  /**
   * Start-up of the embedded server: work claimed before this instant belonged to the previous process,
   * which is gone, whatever its lease says; work claimed since is this process's own.
   */
  bootedAt?: Date;
  customerId?: string;
};

/**
 * One sweep (cron `send-jobs-sweep` every minute in production; every start of the embedded server with
 * both limits 0, where nothing else can be in flight).
 */
export async function recoverSendJobs(deps: ReconcileDeps, options: Options): Promise<RecoveryResult> {
  const { db } = deps;
  const now = deps.clock.now();
  const result: RecoveryResult = { started: 0, resumed: 0, completed: 0, unknown: 0, reconciled: 0, waiting: 0, unavailable: 0, skipped: 0 };
  const ofCustomer = options.customerId ? eq(mailSendJobs.customerId, options.customerId) : undefined;
  const count = (outcome: ReconcileOutcome) => {
    if (outcome === "settled") result.reconciled++;
    else if (outcome === "waiting") result.waiting++;
    else if (outcome === "unavailable") result.unavailable++;
  };
  const failed = new Set<string>();
  const forCustomer = async <T>(customerId: string, work: () => Promise<T>): Promise<T | undefined> => {
    if (failed.has(customerId)) return undefined;
    try {
      return await work();
    } catch (error) {
      if (isDatabaseUnavailable(error)) throw error;
      failed.add(customerId);
      result.skipped++;
      deps.logger.error("send-jobs sweep: this customer's work failed and waits for the next sweep; the other customers' goes on", {
        customer_id: customerId,
        error: String(error),
      });
      return undefined;
    }
  };

  const due = await db
    .select({ id: mailSendJobs.id, customerId: mailSendJobs.customerId })
    .from(mailSendJobs)
    .where(and(eq(mailSendJobs.status, "scheduled"), lte(mailSendJobs.scheduledAt, now), ofCustomer));
  for (const job of due) if (await forCustomer(job.customerId, () => startDueJob(deps, job.id, job.customerId))) result.started++;

  // Claims whose lease has expired (their worker is gone; one waiting for a slow provider renews it) or
  // that the previous process made: their `sending` messages lost the worker; then every batch in doubt.
  const lostBefore = new Date(now.getTime() - options.inFlightForMs);
  const chunks = mailSendJobChunks;
  const claims = await db
    .select({
      jobId: chunks.sendJobId,
      batchId: chunks.batchId,
      customerId: mailSendJobs.customerId,
      recipients: chunks.recipients,
      claimedAt: chunks.claimedAt,
      leaseUntil: chunks.leaseUntil,
    })
    .from(chunks)
    .innerJoin(mailSendJobs, eq(mailSendJobs.id, chunks.sendJobId))
    .where(
      and(
        isNotNull(chunks.batchId),
        or(
          lte(chunks.leaseUntil, now),
          and(isNull(chunks.leaseUntil), lte(chunks.claimedAt, lostBefore)),
          options.bootedAt ? lt(chunks.claimedAt, options.bootedAt) : undefined,
        ),
        ofCustomer,
      ),
    )
    .orderBy(chunks.claimedAt)
    .limit(RECONCILE_PER_SWEEP);
  // Every lost claim is marked first: reconciling one may wait for the provider (each call is bounded).
  for (const claim of claims) {
    if (!claim.batchId) continue;
    const { batchId } = claim;
    const ids = (JSON.parse(claim.recipients) as ChunkEntry[]).map((e) => e[0]);
    result.unknown += (await forCustomer(claim.customerId, () => markLost(deps, { ...claim, batchId }, ids, now, options.bootedAt))) ?? 0;
  }

  // Transactional mails: the same, one message at a time.
  const lostTransactional = await db
    .update(mailMessages)
    .set({ status: "unknown", error: LOST_IN_FLIGHT })
    .where(
      and(
        // `sending` and `unknown` were never taken by Postmark: no `accepted_at`, which the sweep's index needs said.
        isNull(mailMessages.sendJobId),
        isNull(mailMessages.acceptedAt),
        eq(mailMessages.status, "sending"),
        options.bootedAt ? or(lte(mailMessages.createdAt, lostBefore), lt(mailMessages.createdAt, options.bootedAt)) : lte(mailMessages.createdAt, lostBefore),
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
      and(
        isNull(mailMessages.sendJobId),
        isNull(mailMessages.acceptedAt),
        eq(mailMessages.status, "unknown"),
        or(isNull(mailMessages.error), ne(mailMessages.error, UNKNOWN_FOR_GOOD)),
        options.customerId ? eq(mailMessages.customerId, options.customerId) : undefined,
      ),
    )
    .limit(RECONCILE_PER_SWEEP);

  // Running jobs without progress lost their lanes: new ones take the remaining recipients.
  const stalledBefore = new Date(now.getTime() - options.stalledForMs);
  const stalled = await db
    .select({ id: mailSendJobs.id, customerId: mailSendJobs.customerId, pending: mailSendJobs.pending, status: mailSendJobs.status })
    .from(mailSendJobs)
    .where(
      and(
        ofCustomer,
        inArray(mailSendJobs.status, ["running", "paused"]),
        or(isNull(mailSendJobs.lastProgressAt), lte(mailSendJobs.lastProgressAt, stalledBefore)),
      ),
    );
  for (const job of stalled) {
    await forCustomer(job.customerId, async () => {
      if (job.status === "running" && job.pending > 0) {
        if (await resumeUnderNewRun(deps, job.id)) result.resumed++;
      } else {
        await completeJob(deps, job.id);
        const [after] = await db.select({ status: mailSendJobs.status }).from(mailSendJobs).where(eq(mailSendJobs.id, job.id));
        if (after?.status === "completed") result.completed++;
      }
    });
  }
  // Last, what asks the provider: lanes and marks above never wait for it.
  for (const claim of claims) {
    const { batchId } = claim;
    if (!batchId) continue;
    const outcome = await forCustomer(claim.customerId, () => reconcileBatch(deps, { job_id: claim.jobId, customer_id: claim.customerId, batch_id: batchId }));
    if (outcome) count(outcome);
  }
  for (const message of transactionalInDoubt) {
    const outcome = await forCustomer(message.customerId, () => reconcileMessage(deps, { message_id: message.id, customer_id: message.customerId }));
    if (outcome) count(outcome);
  }
  // Batches decided "never received" whose original call is asked about again (./late-truth.ts).
  await recheckDue(deps, now, options.customerId).catch((error: unknown) => {
    if (isDatabaseUnavailable(error)) throw error;
    deps.logger.error("send-jobs sweep: late truth not asked for; the next sweep asks again", { error: String(error) });
  });
  // Progress of the Bulk API requests Postmark is still sending (informational; see ./bulk-requests.ts).
  await refreshBulkRequests(deps, { customerId: options.customerId, now }).catch((error: unknown) => {
    if (isDatabaseUnavailable(error)) throw error;
    deps.logger.error("send-jobs sweep: bulk request progress not refreshed", { error: String(error) });
  });
  return result;
}

/**
 * The batch's messages still `sending` lost their worker: `unknown`, with their events and the job's
 * counters. A claim of the previous process is in doubt since that process's last sign of life
 * (`lostCallEnded`: never later than `bootedAt`), even if its lease said later.
 */
async function markLost(
  deps: EngineDeps,
  claim: { jobId: string; customerId: string; batchId: string; claimedAt: Date | null; leaseUntil: Date | null },
  ids: string[],
  now: Date,
  bootedAt?: Date,
): Promise<number> {
  const { jobId, customerId, batchId } = claim;
  const ended =
    bootedAt && claim.claimedAt && claim.claimedAt.getTime() < bootedAt.getTime()
      ? await lostCallEnded(deps, customerId, [claim.claimedAt, claim.leaseUntil ? new Date(claim.leaseUntil.getTime() - BATCH_LEASE_MS) : null], bootedAt)
      : null;
  return deps.db.transaction(async (tx) => {
    // The messages, the job, then the row of addresses: the order of the batch's record (`lockMessagesInOrder`).
    await lockMessagesInOrder(tx, ids);
    const lost = await tx
      .update(mailMessages)
      .set({ status: "unknown", error: LOST_IN_FLIGHT })
      .where(and(inArray(mailMessages.id, ids), eq(mailMessages.status, "sending")))
      .returning({ id: mailMessages.id });
    if (lost.length > 0) {
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
    }
    if (ended) {
      await tx
        .update(mailSendJobChunks)
        .set({ leaseUntil: sql`least(coalesce(${mailSendJobChunks.leaseUntil}, ${ended}), ${ended})` })
        .where(and(eq(mailSendJobChunks.sendJobId, jobId), eq(mailSendJobChunks.batchId, batchId), lt(mailSendJobChunks.claimedAt, ended)));
    }
    return lost.length;
  });
}

/**
 * Start-up of the embedded server (one process owns the database): whatever was claimed before `bootedAt`
 * lost its worker; it is reconciled at once, and running jobs get new lanes. It runs in the background
 * after the server listens, so what this process claims meanwhile is its own and left alone. Never run
 * this where other processes may be sending (Vercel): the `send-jobs-sweep` cron covers production with
 * the leases.
 */
export async function recoverAfterRestart(deps: ReconcileDeps, bootedAt: Date): Promise<RecoveryResult> {
  return recoverSendJobs(deps, { stalledForMs: 0, inFlightForMs: IN_FLIGHT_LIMIT_MS, bootedAt });
}
