import { and, eq, gte, inArray, sql } from "drizzle-orm";
import type { CoreDeps } from "../../core/context";
import { ConflictError, ValidationError } from "../../core/errors";
import type { Database } from "../../db/client";
import { mailMessageEvents, mailMessages, mailProviderConfigs, mailSendJobs, type ReputationGuardRecord } from "../../db/schema";
import { DEFAULT_REPUTATION_GUARD, GUARD_BOUNDS } from "./guard";
import { getSendJobRow, ownJob, toSendJobView, type SendJob } from "./model";
import { publishLanes } from "./transitions";

/*
 * A customer's reputation as the operator reads it: 30 days of its live mail, newsletters and transactional
 * mail apart (the guard judges newsletters only; transactional mail is one-to-one and expected), the guard's
 * thresholds, and the operator's actions on them (change the thresholds, resume a job the guard paused).
 */

const WINDOW_DAYS = 30;

type KindFigures = {
  delivered: number;
  outcomes: number;
  hard_bounces: number;
  complaints: number;
  hard_bounce_rate: number;
  complaint_rate: number;
};

export type ReputationFigures = {
  since: string;
  newsletter: KindFigures & { unsubscribes: number };
  transactional: KindFigures;
  thresholds: ReputationGuardRecord;
  defaults: ReputationGuardRecord;
  over_complaint_threshold: boolean;
  paused_jobs: number;
};

const rate = (part: number, whole: number) => (whole === 0 ? 0 : part / whole);

export async function reputationFigures(db: Database, customerId: string, now: Date): Promise<ReputationFigures> {
  const since = new Date(now.getTime() - WINDOW_DAYS * 24 * 3600 * 1000);
  const m = mailMessages;
  const [rows, [unsubscribed], [config], [paused]] = await Promise.all([
    db
      .select({
        kind: m.kind,
        delivered: sql<number>`count(*) filter (where ${m.deliveredAt} is not null)`.mapWith(Number),
        outcomes: sql<number>`count(*) filter (where ${m.deliveredAt} is not null or ${m.bouncedAt} is not null)`.mapWith(Number),
        hardBounces: sql<number>`count(*) filter (where ${m.bounceFinal})`.mapWith(Number),
        complaints: sql<number>`count(*) filter (where ${m.complainedAt} is not null)`.mapWith(Number),
      })
      .from(m)
      .where(and(eq(m.customerId, customerId), gte(m.acceptedAt, since), eq(m.mode, "live")))
      .groupBy(m.kind),
    db
      .select({ count: sql<number>`count(*)`.mapWith(Number) })
      .from(mailMessageEvents)
      .where(and(eq(mailMessageEvents.customerId, customerId), eq(mailMessageEvents.type, "unsubscribed"), gte(mailMessageEvents.occurredAt, since))),
    db.select({ guard: mailProviderConfigs.reputationGuard }).from(mailProviderConfigs).where(eq(mailProviderConfigs.customerId, customerId)),
    db
      .select({ count: sql<number>`count(*)`.mapWith(Number) })
      .from(mailSendJobs)
      .where(
        and(eq(mailSendJobs.customerId, customerId), eq(mailSendJobs.status, "paused"), inArray(mailSendJobs.pauseReason, ["bounce_rate", "complaint_rate"])),
      ),
  ]);
  const figures = (kind: "newsletter" | "transactional"): KindFigures => {
    const row = rows.find((r) => r.kind === kind);
    const outcomes = row?.outcomes ?? 0;
    return {
      delivered: row?.delivered ?? 0,
      outcomes,
      hard_bounces: row?.hardBounces ?? 0,
      complaints: row?.complaints ?? 0,
      hard_bounce_rate: rate(row?.hardBounces ?? 0, outcomes),
      complaint_rate: rate(row?.complaints ?? 0, outcomes),
    };
  };
  const thresholds = config?.guard ?? DEFAULT_REPUTATION_GUARD;
  const newsletter = { ...figures("newsletter"), unsubscribes: unsubscribed?.count ?? 0 };
  return {
    since: since.toISOString(),
    newsletter,
    transactional: figures("transactional"),
    thresholds,
    defaults: DEFAULT_REPUTATION_GUARD,
    over_complaint_threshold: newsletter.complaint_rate > thresholds.complaint_rate,
    paused_jobs: paused?.count ?? 0,
  };
}

/** Sets the customer's thresholds (within GUARD_BOUNDS; the schema checks too) or, with `null`, back to the defaults. */
export async function setGuardThresholds(
  db: Database,
  customerId: string,
  input: Partial<ReputationGuardRecord> | null,
  now: Date,
): Promise<ReputationGuardRecord> {
  const [config] = await db
    .select({ guard: mailProviderConfigs.reputationGuard })
    .from(mailProviderConfigs)
    .where(eq(mailProviderConfigs.customerId, customerId));
  const next = input === null ? null : { ...(config?.guard ?? DEFAULT_REPUTATION_GUARD), ...input };
  if (next) {
    for (const key of Object.keys(GUARD_BOUNDS) as (keyof typeof GUARD_BOUNDS)[]) {
      const { min, max } = GUARD_BOUNDS[key];
      if (next[key] < min || next[key] > max)
        throw new ValidationError("Threshold out of bounds.", [{ path: key, message: `Must be between ${min} and ${max}.` }]);
    }
  }
  await db
    .insert(mailProviderConfigs)
    .values({ customerId, reputationGuard: next, updatedAt: now })
    .onConflictDoUpdate({ target: mailProviderConfigs.customerId, set: { reputationGuard: next, updatedAt: now } });
  return next ?? DEFAULT_REPUTATION_GUARD;
}

/**
 * paused (by the guard) → running under a new run, with the sample reset: the operator has looked at the
 * list and takes the responsibility. A job paused for another reason answers 409 (the customer's start
 * resumes those).
 */
export async function resumeGuardedJob(deps: Pick<CoreDeps, "db" | "clock" | "queue">, customerId: string, jobId: string): Promise<SendJob> {
  const now = deps.clock.now();
  const [resumed] = await deps.db
    .update(mailSendJobs)
    .set({
      status: "running",
      pauseReason: null,
      run: sql`${mailSendJobs.run} + 1`,
      guardOutcomes: 0,
      guardHardBounces: 0,
      guardComplaints: 0,
      lastProgressAt: now,
      updatedAt: now,
    })
    .where(and(ownJob(customerId, jobId), eq(mailSendJobs.status, "paused"), inArray(mailSendJobs.pauseReason, ["bounce_rate", "complaint_rate"])))
    .returning();
  if (!resumed) {
    const job = await getSendJobRow(deps.db, customerId, jobId);
    throw new ConflictError(
      `The job is ${job.status}${job.pauseReason ? ` (${job.pauseReason})` : ""}; only a job the reputation guard paused is resumed here.`,
      { reason: "not_paused_by_guard", status: job.status },
    );
  }
  await publishLanes(deps, resumed);
  return toSendJobView(resumed);
}
