import { eq, sql } from "drizzle-orm";
import { mailProviderHealth } from "../../db/schema";
import type { MailDeps } from "../deps";
import type { EngineDeps } from "./transitions";

/*
 * The evidence that a provider call in doubt will never be taken in (docs/adr/0070-exactly-once-when-the-provider-stalls.md).
 * Postmark may hold a call whose connection already closed and take it in later, when it works through its
 * backlog: by minutes in an incident, and not necessarily in the order the calls came. Neither the search
 * missing the call nor the search showing other, newer mail proves it will not still arrive. What does:
 *   1. Postmark has answered our probes normally since `h` (the answer to the first probe of the current
 *      run of answers, none left unanswered since), and `h` is after the call was over on our side
 *      (`doubtSince`; the later of the two counts);
 *   2. it has gone on answering for longer than the call can have been held before `h` (`h - startedAt`,
 *      the whole stall as far as this call is concerned) and at least the grace period: a backlog is
 *      worked through in no longer than the stall that built it up;
 *   3. a probe sent after that moment (2) has been answered and Postmark's search shows it: the search is
 *      current past everything Postmark can still have taken in of the call.
 * The probes are the service's own traffic, so a server without other mail gets its evidence as soon as
 * (1)-(3) allow. A probe is a message to Postmark's black-hole address on the call's server and stream,
 * delivered to no one (`PROBE_ADDRESS`); one per customer per reconciliation interval, only while
 * something is in doubt. Their run of answers is kept per customer (`mail_provider_health`), so every
 * process and every call in doubt shares it.
 */

export type ProbeDeps = EngineDeps & Pick<MailDeps, "postmark">;

/** Whether the search may be taken as current past everything the call in doubt can still have become. */
export type Evidence = { kind: "current" } | { kind: "waiting"; reason: string } | { kind: "unavailable"; reason: string };

export type CallInDoubt = {
  /** When the provider call started (its claim): the earliest the provider can have held it from. */
  startedAt: Date;
  /** When the call was surely over on our side (its answer, time-out, lease expiry or the restart). */
  doubtSince: Date;
};

export type ProbeRoute = { serverToken: string; from: string; stream: string };

/** How often reconciliation asks again (1 s – 5 min, a quarter of the grace): probes are sent no more often. */
export function askInterval(grace: number): number {
  return Math.min(300_000, Math.max(1000, grace / 4));
}

type HealthRow = typeof mailProviderHealth.$inferSelect;

/** The start of the current run of normal answers (none left unanswered since), or null. */
function healthySince(row: HealthRow | undefined): Date | null {
  if (!row?.healthySince) return null;
  if (row.lastFailureAt && row.healthySince.getTime() <= row.lastFailureAt.getTime()) return null;
  return row.healthySince;
}

/** The moment (2) above for `call`, or null while Postmark has not answered a probe since the last one left unanswered. */
function settledAfter(row: HealthRow | undefined, call: CallInDoubt, grace: number): Date | null {
  const since = healthySince(row);
  if (!since) return null;
  const h = Math.max(since.getTime(), call.doubtSince.getTime());
  return new Date(h + Math.max(grace, h - call.startedAt.getTime()));
}

async function readHealth(deps: ProbeDeps, customerId: string): Promise<HealthRow | undefined> {
  const [row] = await deps.db.select().from(mailProviderHealth).where(eq(mailProviderHealth.customerId, customerId));
  return row;
}

/**
 * Sends one probe and records what it showed: an answer starts (or continues) the run of normal answers
 * at the moment it came; anything else (no answer, 5xx, turned away, refused) ends it. A probe sent
 * before the latest one left unanswered starts nothing.
 */
async function probe(deps: ProbeDeps, customerId: string, route: ProbeRoute): Promise<void> {
  const probeId = crypto.randomUUID();
  const sentAt = deps.clock.now();
  const outcome = await deps.postmark.probe(route.serverToken, { from: route.from, stream: route.stream, probeId });
  const answeredAt = deps.clock.now();
  const h = mailProviderHealth;
  if (outcome.kind === "accepted") {
    await deps.db
      .insert(h)
      .values({ customerId, healthySince: answeredAt, probeId, probeSentAt: sentAt, updatedAt: answeredAt })
      .onConflictDoUpdate({
        target: h.customerId,
        set: {
          healthySince: sql`case when ${h.lastFailureAt} is not null and ${h.lastFailureAt} >= ${sentAt}::timestamptz then ${h.healthySince}
                                 when ${h.healthySince} is null or (${h.lastFailureAt} is not null and ${h.healthySince} <= ${h.lastFailureAt}) then ${answeredAt}::timestamptz
                                 else least(${h.healthySince}, ${answeredAt}::timestamptz) end`,
          probeId: sql`case when ${h.probeSentAt} is null or ${h.probeSentAt} < ${sentAt}::timestamptz then ${probeId}::uuid else ${h.probeId} end`,
          probeSentAt: sql`greatest(${h.probeSentAt}, ${sentAt}::timestamptz)`,
          updatedAt: answeredAt,
        },
      });
    return;
  }
  deps.logger.warn("reconciliation: Postmark did not answer a probe normally; calls in doubt wait", {
    customer_id: customerId,
    outcome: outcome.kind,
    reason: "message" in outcome ? outcome.message : undefined,
  });
  await deps.db
    .insert(h)
    .values({ customerId, lastFailureAt: answeredAt, updatedAt: answeredAt })
    .onConflictDoUpdate({ target: h.customerId, set: { lastFailureAt: sql`greatest(${h.lastFailureAt}, ${answeredAt}::timestamptz)`, updatedAt: answeredAt } });
}

/**
 * Whether the search is current past everything `call` can still become at Postmark (see the top of this
 * file), probing when the latest probe is older than the asking interval or older than the moment (2).
 */
export async function evidenceFor(deps: ProbeDeps, customerId: string, route: ProbeRoute, call: CallInDoubt, grace: number): Promise<Evidence> {
  const now = deps.clock.now();
  let row = await readHealth(deps, customerId);
  const stale = (r: HealthRow | undefined) => {
    const latest = Math.max(r?.probeSentAt?.getTime() ?? Number.NEGATIVE_INFINITY, r?.lastFailureAt?.getTime() ?? Number.NEGATIVE_INFINITY);
    if (now.getTime() - latest >= askInterval(grace) * 0.9) return true;
    const after = settledAfter(r, call, grace);
    return after !== null && after.getTime() <= now.getTime() && (r?.probeSentAt?.getTime() ?? 0) < after.getTime();
  };
  if (stale(row)) {
    await probe(deps, customerId, route);
    row = await readHealth(deps, customerId);
  }
  const after = settledAfter(row, call, grace);
  if (!after) return { kind: "waiting", reason: "Postmark has not answered a probe since the call" };
  if (!row?.probeId || !row.probeSentAt || row.probeSentAt.getTime() < after.getTime()) {
    return { kind: "waiting", reason: `Postmark must answer normally until ${after.toISOString()}` };
  }
  const shown = await deps.postmark.searchByMetadata(route.serverToken, "probe_id", row.probeId);
  if (shown.kind === "unavailable") return { kind: "unavailable", reason: shown.message };
  if (shown.messages.length === 0) return { kind: "waiting", reason: "Postmark's search does not show the latest probe yet" };
  return { kind: "current" };
}
