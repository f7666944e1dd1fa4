import { and, eq, inArray, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { mailSendJobs } from "../../db/schema";
import { QuotaExceededError } from "../../core/errors";
import { acceptedLiveThisMonth } from "../messages/service";

/**
 * The monthly limit counts what was accepted this month plus what is already promised: the pending
 * recipients of the customer's live jobs that can still send (draft, scheduled, running, paused).
 * So a recipient added today is checked against everything that may go out, and the 429 comes when the
 * recipients are added or the job is started, not halfway through the send.
 */
export const OPEN_JOB_STATUSES = ["draft", "scheduled", "running", "paused"] as const;

export type MonthlyLimits = { monthlyLimit: number; maxPerJob: number };

/** Pending recipients of the customer's open live jobs (a transaction handle works as `db` too). */
export async function reservedLive(db: Database, customerId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`coalesce(sum(${mailSendJobs.pending}), 0)::int` })
    .from(mailSendJobs)
    .where(and(eq(mailSendJobs.customerId, customerId), eq(mailSendJobs.mode, "live"), inArray(mailSendJobs.status, [...OPEN_JOB_STATUSES])));
  return row?.n ?? 0;
}

/**
 * Serialises a customer's quota checks until the transaction ends (a transaction-level advisory lock keyed
 * by the customer): the reservation read after it includes every add committed before.
 */
export async function lockCustomerQuota(tx: Database, customerId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`mail-quota:${customerId}`}, 0))`);
}

/**
 * 429 `quota_exceeded` when a job would hold more than `maxPerJob` sendable recipients, or (live jobs)
 * when accepted-this-month plus every open live job's pending recipients would pass the monthly limit.
 * `jobPending` is this job's pending count as it would be; the reservation read here must already include
 * it when the caller's transaction has written it.
 */
export async function assertSendQuota(
  db: Database,
  input: { customerId: string; mode: "live" | "sandbox"; jobPending: number; limits: MonthlyLimits; now: Date },
): Promise<void> {
  const { limits } = input;
  if (input.jobPending > limits.maxPerJob) {
    const message = `A send job may hold at most ${limits.maxPerJob} recipients to send; this one would hold ${input.jobPending}.`;
    throw new QuotaExceededError(`${message} An administrator can raise the maximum.`, [{ path: "recipients", message }]);
  }
  if (input.mode !== "live") return;
  const sent = await acceptedLiveThisMonth(db, input.customerId, input.now);
  const reserved = await reservedLive(db, input.customerId);
  if (sent + reserved > limits.monthlyLimit) {
    throw new QuotaExceededError(
      `The monthly sending limit of ${limits.monthlyLimit} e-mails would be passed: ${sent} sent this month and ${reserved} pending in open jobs. An administrator can raise it.`,
      [],
    );
  }
}
