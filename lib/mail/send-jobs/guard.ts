import { and, eq, sql } from "drizzle-orm";
import type { Tx } from "../../db/client";
import { mailProviderConfigs, mailSendJobs, type ReputationGuardRecord } from "../../db/schema";
import { enqueueMailEvent } from "../webhooks/emit";

/*
 * The reputation guard. Every customer sends through the operator's one Postmark account, so one
 * customer's bought or stale list can get the account reviewed and everyone's mail stopped. While a
 * newsletter job sends, the provider events it already ingests count into the job's sample (since start or
 * the last resume): a message's first outcome (delivered or bounced), its hard bounce, its spam complaint.
 * Once the sample holds `min_sample` outcomes, a hard-bounce rate or complaint rate strictly above its
 * threshold moves the job from `running` to `paused` (`pause_reason` `bounce_rate` / `complaint_rate`) in
 * the transaction that ingested the event, with the `job.paused` webhook. The batch claim only takes rows
 * of a running job (./batch-store.ts), so no batch claimed after that commit goes out; batches already
 * handed to Postmark are not recalled. Only an operator (admin role) resumes such a job, which resets the
 * sample. Transactional mail has no job and is never paused.
 *
 * Defaults and bounds (sources in docs/provider-facts.md, reasons in docs/adr/0051):
 * - hard-bounce rate 5 %: half the ~10 % at which Postmark reviews an account, so one job never brings the
 *   shared account there on its own; an operator may set 0.5 %..10 %;
 * - complaint rate 0.1 %: Postmark's review level and Gmail's "below 0.10 %"; 0.05 %..0.3 % (Gmail's
 *   "never reach 0.30 %" is the ceiling);
 * - minimum sample 500 outcomes (one batch's worth); 100..10,000.
 */

export const DEFAULT_REPUTATION_GUARD: ReputationGuardRecord = { bounce_rate: 0.05, complaint_rate: 0.001, min_sample: 500 };

export const GUARD_BOUNDS = {
  bounce_rate: { min: 0.005, max: 0.1 },
  complaint_rate: { min: 0.0005, max: 0.003 },
  min_sample: { min: 100, max: 10_000 },
} as const;

export type GuardSample = { outcomes: number; hardBounces: number; complaints: number };
export type GuardVerdict = "bounce_rate" | "complaint_rate" | null;

/** Millionths, so the comparison is exact in integers (0.05 × 500 is not 25 in floating point). */
const ppm = (fraction: number) => Math.round(fraction * 1_000_000);

/** Whether the sample trips the guard: enough outcomes, and a rate strictly above its threshold. */
export function guardVerdict(sample: GuardSample, thresholds: ReputationGuardRecord): GuardVerdict {
  if (sample.outcomes < thresholds.min_sample || sample.outcomes === 0) return null;
  if (sample.hardBounces * 1_000_000 > ppm(thresholds.bounce_rate) * sample.outcomes) return "bounce_rate";
  if (sample.complaints * 1_000_000 > ppm(thresholds.complaint_rate) * sample.outcomes) return "complaint_rate";
  return null;
}

/** What one ingested event adds to its job's sample (each 0 or 1), from the message's state before and after. */
export type GuardDelta = GuardSample;

type MessageOutcomeState = { deliveredAt: Date | null; bouncedAt: Date | null; bounceFinal: boolean | null; complainedAt: Date | null };

export function guardDelta(before: MessageOutcomeState, after: MessageOutcomeState): GuardDelta {
  const hadOutcome = before.deliveredAt !== null || before.bouncedAt !== null;
  const hasOutcome = after.deliveredAt !== null || after.bouncedAt !== null;
  return {
    outcomes: !hadOutcome && hasOutcome ? 1 : 0,
    hardBounces: before.bounceFinal !== true && after.bounceFinal === true ? 1 : 0,
    complaints: before.complainedAt === null && after.complainedAt !== null ? 1 : 0,
  };
}

async function guardThresholds(tx: Tx, customerId: string): Promise<ReputationGuardRecord> {
  const [row] = await tx.select({ guard: mailProviderConfigs.reputationGuard }).from(mailProviderConfigs).where(eq(mailProviderConfigs.customerId, customerId));
  return row?.guard ?? DEFAULT_REPUTATION_GUARD;
}

/**
 * Adds the delta to the job's sample and pauses a running job the sample trips, inside the ingesting
 * transaction. Returns the webhook deliveries to publish after the commit.
 */
export async function countTowardsGuard(tx: Tx, now: Date, jobId: string, delta: GuardDelta): Promise<string[]> {
  if (delta.outcomes + delta.hardBounces + delta.complaints === 0) return [];
  const [job] = await tx
    .update(mailSendJobs)
    .set({
      guardOutcomes: sql`${mailSendJobs.guardOutcomes} + ${delta.outcomes}`,
      guardHardBounces: sql`${mailSendJobs.guardHardBounces} + ${delta.hardBounces}`,
      guardComplaints: sql`${mailSendJobs.guardComplaints} + ${delta.complaints}`,
    })
    .where(eq(mailSendJobs.id, jobId))
    .returning({
      customerId: mailSendJobs.customerId,
      status: mailSendJobs.status,
      outcomes: mailSendJobs.guardOutcomes,
      hardBounces: mailSendJobs.guardHardBounces,
      complaints: mailSendJobs.guardComplaints,
    });
  if (job?.status !== "running") return [];
  const thresholds = await guardThresholds(tx, job.customerId);
  const verdict = guardVerdict(job, thresholds);
  if (!verdict) return [];
  const [paused] = await tx
    .update(mailSendJobs)
    .set({ status: "paused", pauseReason: verdict, updatedAt: now })
    .where(and(eq(mailSendJobs.id, jobId), eq(mailSendJobs.status, "running")))
    .returning({ id: mailSendJobs.id });
  if (!paused) return [];
  return enqueueMailEvent(tx, now, job.customerId, "job.paused", {
    send_job_id: jobId,
    pause_reason: verdict,
    sample: {
      outcomes: job.outcomes,
      hard_bounces: job.hardBounces,
      complaints: job.complaints,
      hard_bounce_rate: job.hardBounces / job.outcomes,
      complaint_rate: job.complaints / job.outcomes,
    },
    thresholds,
  });
}
