import { and, desc, eq, gt, gte, inArray, lt, or, sql } from "drizzle-orm";
import type { CoreDeps } from "../core/context";
import {
  adsInsightSnapshots,
  customers,
  mailMessageCountDeltas,
  mailMessageCounts,
  mailSendJobs,
  mailSettings,
  mailWebhooks,
  adsWebhooks,
  unfinishedSendJobStatuses,
} from "../db/schema";
import type { WebhookEndpointsTable } from "../db/schema/webhooks";
import { type SystemFigures, systemFigures } from "./system";

/**
 * What the operator's overview shows across customers for a period (`GET /admin/v1/overview`), read from
 * aggregates and small tables only: message figures from `mail_message_counts` (+ its unfolded deltas, see
 * lib/db/schema/mail-counts.ts), never from `mail_messages`; send jobs, webhook endpoints and settings are
 * one row per object; ads figures from the day snapshots' totals rows.
 *
 * The period is whole UTC hours (`since` rounded down, `until` up), the grain of the counts: a figure counts
 * the messages created in it by their state now, so it equals the message list with the same state and the
 * returned `since`/`until`.
 */

export const MESSAGE_STATES = ["pending", "accepted", "delivered", "bounced", "complained", "suppressed", "invalid", "failed", "unknown"] as const;
export type MessageState = (typeof MESSAGE_STATES)[number];
export type StateCounts = Record<MessageState, number>;

/** States of a message Postmark took: the base of the delivery, bounce and complaint rates. */
const TAKEN: readonly MessageState[] = ["accepted", "delivered", "bounced", "complained"];
/** Share of the monthly limit from which a customer is listed as near it. */
const NEAR_LIMIT_SHARE = 0.8;

const HOUR = 3_600_000;
const floorHour = (at: Date) => new Date(Math.floor(at.getTime() / HOUR) * HOUR);
const ceilHour = (at: Date) => new Date(Math.ceil(at.getTime() / HOUR) * HOUR);

const emptyCounts = (): StateCounts => Object.fromEntries(MESSAGE_STATES.map((s) => [s, 0])) as StateCounts;
const stateOf = (status: string): MessageState => (status === "sending" ? "pending" : (status as MessageState));

/** Moves the deltas into the counts, if no other reader is doing so now (then its fold serves us next time). */
async function foldDeltas(deps: Pick<CoreDeps, "db">): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const locked = await tx.execute<{ ok: boolean }>(sql`select pg_try_advisory_xact_lock(hashtext('mail_message_counts')) as ok`);
    const row = ((locked as { rows?: { ok: boolean }[] }).rows ?? [])[0];
    if (!row?.ok) return;
    await tx.execute(sql`
      with moved as (delete from ${mailMessageCountDeltas} returning customer_id, hour, mode, status, delta),
      sums as (select customer_id, hour, mode, status, sum(delta)::bigint as n from moved group by 1, 2, 3, 4)
      insert into ${mailMessageCounts} (customer_id, hour, mode, status, count)
      select customer_id, hour, mode, status, n from sums
      on conflict (customer_id, hour, mode, status) do update set count = ${mailMessageCounts.count} + excluded.count`);
  });
}

type CountRow = { customerId: string; mode: string; status: string; n: number };

/** Messages per customer, mode and state created in [since, until): the counts plus any deltas not folded yet. */
async function countsIn(deps: Pick<CoreDeps, "db">, since: Date, until: Date): Promise<CountRow[]> {
  const c = mailMessageCounts;
  const d = mailMessageCountDeltas;
  const result = await deps.db.execute<{ customer_id: string; mode: string; status: string; n: string | number }>(sql`
    select customer_id, mode, status, sum(n)::bigint as n from (
      select ${c.customerId} as customer_id, ${c.mode} as mode, ${c.status} as status, ${c.count} as n from ${c}
        where ${c.hour} >= ${since.toISOString()}::timestamptz and ${c.hour} < ${until.toISOString()}::timestamptz
      union all
      select ${d.customerId}, ${d.mode}, ${d.status}, ${d.delta} from ${d}
        where ${d.hour} >= ${since.toISOString()}::timestamptz and ${d.hour} < ${until.toISOString()}::timestamptz
    ) as all_counts group by 1, 2, 3 having sum(n) <> 0`);
  const rows = (result as { rows?: { customer_id: string; mode: string; status: string; n: string | number }[] }).rows ?? [];
  return rows.map((r) => ({ customerId: r.customer_id, mode: r.mode, status: r.status, n: Number(r.n) }));
}

export type OverviewRates = { delivered: number | null; bounced: number | null; complained: number | null };

function ratesOf(counts: StateCounts): OverviewRates {
  const taken = TAKEN.reduce((sum, s) => sum + counts[s], 0);
  const share = (n: number) => (taken === 0 ? null : n / taken);
  return { delivered: share(counts.delivered), bounced: share(counts.bounced), complained: share(counts.complained) };
}

export async function readOverview(deps: Pick<CoreDeps, "db" | "clock" | "queue" | "config" | "providerMetrics">, input: { since: Date; until: Date }) {
  const now = deps.clock.now();
  const since = floorHour(input.since);
  const until = ceilHour(input.until);
  await foldDeltas(deps);
  const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const [periodRows, monthRows, names, settings, jobs, mailHooks, adsHooks, ads, system] = await Promise.all([
    countsIn(deps, since, until),
    countsIn(deps, monthStart, ceilHour(now)),
    deps.db.select({ id: customers.id, name: customers.name }).from(customers),
    deps.db.select().from(mailSettings),
    deps.db.select().from(mailSendJobs).where(inArray(mailSendJobs.status, unfinishedSendJobStatuses)).orderBy(desc(mailSendJobs.createdAt)).limit(200),
    failingEndpoints(deps, mailWebhooks),
    failingEndpoints(deps, adsWebhooks),
    adsFigures(deps, since, until),
    systemFigures(deps),
  ]);
  const nameOf = new Map(names.map((c) => [c.id, c.name]));

  const totals = emptyCounts();
  const perCustomer = new Map<string, StateCounts>();
  for (const row of periodRows) {
    const state = stateOf(row.status);
    totals[state] += row.n;
    const counts = perCustomer.get(row.customerId) ?? emptyCounts();
    counts[state] += row.n;
    perCustomer.set(row.customerId, counts);
  }
  // The month's live mail Postmark took, by creation time: what the monthly limit counts (the limit's own
  // meter counts by acceptance time; the two differ only for mail created last month and sent this one).
  const monthTaken = new Map<string, number>();
  for (const row of monthRows) {
    if (row.mode !== "live" || !TAKEN.includes(stateOf(row.status))) continue;
    monthTaken.set(row.customerId, (monthTaken.get(row.customerId) ?? 0) + row.n);
  }
  const attention = settings
    .map((s) => ({
      customer_id: s.customerId,
      customer_name: nameOf.get(s.customerId) ?? s.customerId,
      sending_blocked: s.sendingBlocked,
      monthly_limit: s.monthlyLimit,
      sent_this_month: monthTaken.get(s.customerId) ?? 0,
    }))
    .filter((c) => c.sending_blocked || c.sent_this_month >= NEAR_LIMIT_SHARE * c.monthly_limit)
    .sort((a, b) => b.sent_this_month / b.monthly_limit - a.sent_this_month / a.monthly_limit);

  return {
    generated_at: now.toISOString(),
    since: since.toISOString(),
    until: until.toISOString(),
    mail: {
      totals,
      rates: ratesOf(totals),
      customers: [...perCustomer.entries()]
        .map(([id, counts]) => ({ customer_id: id, customer_name: nameOf.get(id) ?? id, counts, rates: ratesOf(counts) }))
        .sort((a, b) => a.customer_name.localeCompare(b.customer_name)),
    },
    send_jobs: {
      running: jobs.filter((j) => j.status === "running").length,
      scheduled: jobs.filter((j) => j.status === "scheduled").length,
      paused: jobs.filter((j) => j.status === "paused").length,
      jobs: jobs.map((j) => {
        const done = j.accepted + j.suppressed + j.invalid + j.failed + j.unknown;
        return {
          id: j.id,
          name: j.name,
          customer_id: j.customerId,
          customer_name: nameOf.get(j.customerId) ?? j.customerId,
          status: j.status,
          pause_reason: j.pauseReason,
          scheduled_at: j.scheduledAt?.toISOString() ?? null,
          total: j.total,
          done,
          progress: j.total === 0 ? 0 : done / j.total,
        };
      }),
    },
    webhooks_failing: [...mailHooks.map((w) => ({ ...w, service: "mail" as const })), ...adsHooks.map((w) => ({ ...w, service: "ads" as const }))].map((w) => ({
      ...w,
      customer_name: nameOf.get(w.customer_id) ?? w.customer_id,
    })),
    customers_attention: attention,
    providers: { postmark: providerView(system, "postmark"), graph: providerView(system, "graph") },
    queue: {
      send_job_batches_waiting: system.queue.sendJobBatches.waiting,
      send_job_batches_oldest_wait_seconds: system.queue.sendJobBatches.oldestWaitSeconds,
      webhook_deliveries_due: system.queue.webhookDeliveries.due,
      webhook_deliveries_oldest_due_seconds: system.queue.webhookDeliveries.oldestDueSeconds,
    },
    ads: {
      customers: ads.map((a) => ({ ...a, customer_name: nameOf.get(a.customer_id) ?? a.customer_id })),
    },
  };
}

function providerView(system: SystemFigures, name: "postmark" | "graph") {
  const p = system.providers[name];
  return { calls: p.calls, errors: p.errors, error_rate: p.errorRate, latency_p95_ms: p.latencyMs?.p95 ?? null, since: p.since.toISOString() };
}

/** Endpoints with failed attempts since their last success, or switched off after a day of failures. */
async function failingEndpoints(deps: Pick<CoreDeps, "db">, table: WebhookEndpointsTable) {
  const rows = await deps.db
    .select()
    .from(table)
    .where(or(gt(table.failureCount, 0), eq(table.active, false)))
    .orderBy(desc(table.failureCount))
    .limit(100);
  return rows.map((w) => ({
    webhook_id: w.id,
    customer_id: w.customerId,
    url: w.url,
    active: w.active,
    failure_count: w.failureCount,
    last_delivery_at: w.lastDeliveryAt?.toISOString() ?? null,
  }));
}

/** Spend and impressions per customer over the days the period touches (the ad account's days, totals rows). */
async function adsFigures(deps: Pick<CoreDeps, "db">, since: Date, until: Date) {
  const s = adsInsightSnapshots;
  const first = since.toISOString().slice(0, 10);
  const last = new Date(until.getTime() - 1).toISOString().slice(0, 10);
  const rows = await deps.db
    .select({
      customerId: s.customerId,
      spend: sql<string>`sum(${s.spendMinor})`,
      impressions: sql<string>`sum(${s.impressions})`,
      clicks: sql<string>`sum(${s.clicks})`,
    })
    .from(s)
    .where(and(eq(s.dimension, ""), gte(s.date, first), lt(s.date, nextDay(last))))
    .groupBy(s.customerId);
  return rows.map((r) => ({
    customer_id: r.customerId,
    spend_minor: Number(r.spend ?? 0),
    impressions: Number(r.impressions ?? 0),
    clicks: Number(r.clicks ?? 0),
    since_date: first,
    until_date: last,
  }));
}

function nextDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}
