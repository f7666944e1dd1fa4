import { eq, sql } from "drizzle-orm";
import { mailProviderHealth } from "../../db/schema";
import type { MailDeps } from "../deps";
import type { EngineDeps } from "./transitions";

/*
 * The evidence that a provider call in doubt will never be taken in (docs/adr/0061-exactly-once-when-the-provider-stalls.md).
 * Postmark may hold a call whose connection already closed and take it in later, when it works through its
 * backlog: by minutes in an incident, and beside newer mail. Neither the search missing the call nor the
 * search showing newer mail proves it will not still arrive. What does:
 *   1. Postmark has answered the customer's calls promptly since `h`, the first prompt answer of the run
 *      that holds at the call's end on our side (every call Postmark left without a prompt answer,
 *      including the call in doubt itself when it ended without one, ends the run: `noteFailure`);
 *      `h' = max(h, the call's end)`;
 *   2. it has gone on answering for longer than the call can have been held before `h'` (`h' - startedAt`)
 *      and at least the grace period: a held call is taken in no later than that after the stall ended;
 *   3. Postmark's search shows a message received after that moment (2): the search is current past
 *      everything Postmark can still have taken in of the call.
 * The moments `h'` and (2) are the call's deadline, stored with the call once computed and kept while no
 * failure follows `h'`. A restart of the service records no failure: a call lost with its worker ended at
 * that worker's last sign of life (`lostCallEnded`), so the time the service was down never lengthens the
 * wait; a stall of Postmark meanwhile shows in the answers after the restart, and moves the deadline.
 * The service's own traffic gives (1) and (3) on a busy server: every send records its answer (at most one
 * write per customer and asking interval per process for prompt answers). On a server without other mail
 * reconciliation sends probes, messages to Postmark's black-hole address on the call's server and stream,
 * delivered to no one: only when nothing was answered within the asking interval, at most one per customer
 * and interval. A probe is the service's overhead: not in the customer's usage, though Postmark counts it in
 * the server's volume.
 */

type HealthDeps = Pick<EngineDeps, "db" | "clock" | "config" | "logger">;
type ProbeDeps = HealthDeps & Pick<MailDeps, "postmark">;

/** Whether the search may be taken as current past everything the call in doubt can still become. */
type Evidence = ({ kind: "current" } | { kind: "waiting"; reason: string } | { kind: "unavailable"; reason: string }) & { deadline: Deadline | null };

export type CallInDoubt = {
  /** When the provider call started (its claim): the earliest the provider can have held it from. */
  startedAt: Date;
  /** When the call was surely over on our side (its answer, time-out, lease expiry, or its lost worker's last sign of life). */
  doubtSince: Date;
  /** The deadline computed for the call at an earlier asking and stored with it (null: none yet). */
  deadline: Deadline | null;
};

/** A call's deadline, computed once and stored with the call: see `currentDeadline`. */
export type Deadline = { from: Date; after: Date };

/** Where probes go: the call's sender and stream on the customer's server. */
type ProbeRoute = { from: string; stream: string };

/** What Postmark may still take in after a call's connection closed (the test-only setting replaces the floored one). */
export const graceMs = (deps: Pick<EngineDeps, "config">) => deps.config.SEND_RECONCILE_TEST_GRACE_MS ?? deps.config.SEND_RECONCILE_GRACE_SECONDS * 1000;

/** How often reconciliation asks again (1 s – 5 min, a quarter of the grace): probes are sent no more often. */
export function askInterval(grace: number): number {
  return Math.min(300_000, Math.max(1000, grace / 4));
}

/** An answer later than this after its call started is not prompt: Postmark held the call (at most 10 s, at most the grace). */
function promptMs(grace: number): number {
  return Math.min(10_000, grace);
}

type HealthRow = typeof mailProviderHealth.$inferSelect;

/** Per process: when each customer's prompt answer was last written (writes at most every half interval). */
const lastWritten = new Map<string, number>();

/**
 * Records how Postmark answered one of the customer's calls: an answer within `promptMs` of the call's start
 * continues the run of prompt answers, or starts one at the moment it came; anything else (no answer, a
 * 5xx, a slow answer) ends the run at `answeredAt`.
 */
export async function noteAnswer(deps: HealthDeps, customerId: string, startedAt: Date, answeredAt: Date, answered: boolean): Promise<void> {
  const grace = graceMs(deps);
  if (!answered || answeredAt.getTime() - startedAt.getTime() > promptMs(grace)) {
    await noteFailure(deps, customerId, answeredAt);
    return;
  }
  const last = lastWritten.get(customerId);
  if (last !== undefined && answeredAt.getTime() - last < askInterval(grace) / 2 && answeredAt.getTime() >= last) return;
  lastWritten.set(customerId, answeredAt.getTime());
  const h = mailProviderHealth;
  await deps.db
    .insert(h)
    .values({ customerId, healthySince: answeredAt, lastAnswerAt: answeredAt, updatedAt: answeredAt })
    .onConflictDoUpdate({
      target: h.customerId,
      set: {
        // A run starts at the first prompt answer after the latest failure; an answer that came before it starts nothing.
        healthySince: sql`case when ${h.lastFailureAt} is not null and ${h.lastFailureAt} >= ${answeredAt}::timestamptz then ${h.healthySince}
                               when ${h.healthySince} is null or (${h.lastFailureAt} is not null and ${h.healthySince} <= ${h.lastFailureAt}) then ${answeredAt}::timestamptz
                               else ${h.healthySince} end`,
        lastAnswerAt: sql`greatest(${h.lastAnswerAt}, ${answeredAt}::timestamptz)`,
        updatedAt: answeredAt,
      },
    });
}

/** A call of the customer's was left without a prompt answer at `at` (in doubt, lost with its worker, held): the run ends. */
async function noteFailure(deps: HealthDeps, customerId: string, at: Date): Promise<void> {
  lastWritten.delete(customerId);
  const h = mailProviderHealth;
  await deps.db
    .insert(h)
    .values({ customerId, lastFailureAt: at, updatedAt: at })
    .onConflictDoUpdate({ target: h.customerId, set: { lastFailureAt: sql`greatest(${h.lastFailureAt}, ${at}::timestamptz)`, updatedAt: at } });
}

async function readHealth(deps: HealthDeps, customerId: string): Promise<HealthRow | undefined> {
  const [row] = await deps.db.select().from(mailProviderHealth).where(eq(mailProviderHealth.customerId, customerId));
  return row;
}

/**
 * The deadline of `call`: `from`, the moment `h'` (the later of the run's first prompt answer and the
 * call's end on our side), and `after`, the moment (2) above. Null while the run of prompt answers is broken.
 */
function deadlineOf(row: HealthRow | undefined, call: CallInDoubt, grace: number): Deadline | null {
  const since = row?.healthySince;
  if (!since) return null;
  if (row.lastFailureAt && since.getTime() <= row.lastFailureAt.getTime()) return null;
  const h = Math.max(since.getTime(), call.doubtSince.getTime());
  return { from: new Date(h), after: new Date(h + Math.max(grace, h - call.startedAt.getTime())) };
}

/**
 * The deadline that holds for `call` now: the stored one while Postmark has been seen answering promptly
 * ever since its `from` (a restart of ours records nothing, so it changes nothing), else one computed from
 * the current run (Postmark stalled again before the call was decided).
 */
function currentDeadline(row: HealthRow | undefined, call: CallInDoubt, grace: number): Deadline | null {
  const stored = call.deadline;
  if (stored && !(row?.lastFailureAt && row.lastFailureAt.getTime() > stored.from.getTime())) return stored;
  return deadlineOf(row, call, grace);
}

/**
 * Sends one probe unless another process sent one within the asking interval (claimed by a conditional
 * update), and records how Postmark answered it.
 */
async function probe(deps: ProbeDeps, customerId: string, serverToken: string, route: ProbeRoute, now: Date, grace: number): Promise<void> {
  const h = mailProviderHealth;
  const claimed = await deps.db
    .insert(h)
    .values({ customerId, probeSentAt: now, updatedAt: now })
    .onConflictDoUpdate({
      target: h.customerId,
      set: { probeSentAt: now, updatedAt: now },
      setWhere: sql`${h.probeSentAt} is null or ${h.probeSentAt} <= ${new Date(now.getTime() - askInterval(grace) * 0.9)}::timestamptz`,
    })
    .returning({ customerId: h.customerId });
  if (claimed.length === 0) return;
  const outcome = await deps.postmark.probe(serverToken, { from: route.from, stream: route.stream, probeId: crypto.randomUUID() });
  const answeredAt = deps.clock.now();
  if (outcome.kind !== "accepted") {
    deps.logger.warn("reconciliation: Postmark did not answer a probe normally; calls in doubt wait", {
      customer_id: customerId,
      outcome: outcome.kind,
      reason: "message" in outcome ? outcome.message : undefined,
    });
  }
  await noteAnswer(deps, customerId, now, answeredAt, outcome.kind === "accepted");
}

/**
 * Whether the search is current past everything `call` can still become at Postmark (see the top of this
 * file). Probes when the customer's server had nothing answered within the asking interval, or nothing
 * answered within an interval after the moment (2). `route` null: no sender to probe with (nothing is probed; traffic may still decide).
 */
export async function evidenceFor(deps: ProbeDeps, customerId: string, serverToken: string, route: ProbeRoute | null, call: CallInDoubt): Promise<Evidence> {
  const grace = graceMs(deps);
  const now = deps.clock.now();
  const row = await readHealth(deps, customerId);
  const deadline = currentDeadline(row, call, grace);
  const after = deadline?.after ?? null;
  if (after && after.getTime() <= now.getTime()) {
    const newest = await deps.postmark.newestReceivedAt(serverToken);
    if (newest.kind === "unavailable") return { kind: "unavailable", reason: newest.message, deadline };
    if (newest.receivedAt && newest.receivedAt.getTime() >= after.getTime()) return { kind: "current", deadline };
  }
  // Quiet: nothing answered (and nothing failed) within the asking interval, or nothing answered within an
  // interval after the moment (2). The service's own traffic gets that interval to give the evidence first.
  const every = askInterval(grace);
  const lastAnswer = row?.lastAnswerAt?.getTime() ?? Number.NEGATIVE_INFINITY;
  const lastSeen = Math.max(lastAnswer, row?.lastFailureAt?.getTime() ?? Number.NEGATIVE_INFINITY);
  const quiet = now.getTime() - lastSeen >= every || (after !== null && now.getTime() - after.getTime() >= every && lastAnswer < after.getTime());
  if (quiet && route) await probe(deps, customerId, serverToken, route, now, grace);
  if (!after) return { kind: "waiting", reason: "Postmark has not answered promptly since the call was over", deadline };
  if (after.getTime() > now.getTime()) return { kind: "waiting", reason: `Postmark must answer promptly until ${after.toISOString()}`, deadline };
  return { kind: "waiting", reason: "Postmark's search shows nothing received after that moment yet", deadline };
}

/**
 * When a call lost with the previous process was surely over on our side: that process's last sign of life
 * (the claim, its latest lease renewal, the customer's latest answer it recorded, plus the interval such
 * answers are written at), never later than the restart. The time the service was down is no time Postmark
 * was seen holding anything: a stall during it shows in the answers after the restart.
 */
export async function lostCallEnded(deps: HealthDeps, customerId: string, signsOfLife: (Date | null)[], bootedAt: Date): Promise<Date> {
  const row = await readHealth(deps, customerId);
  const seen = [...signsOfLife, row?.lastAnswerAt ?? null, row?.lastFailureAt ?? null]
    .filter((d): d is Date => d !== null && d.getTime() < bootedAt.getTime())
    .map((d) => d.getTime());
  if (seen.length === 0) return bootedAt;
  return new Date(Math.min(bootedAt.getTime(), Math.max(...seen) + askInterval(graceMs(deps))));
}
