import { and, eq, sql, type SQL } from "drizzle-orm";
import { BadRequestError, NotFoundError } from "../../core/errors";
import type { Database } from "../../db/client";
import { mailMessageSeriesCounts, mailMessageSeriesDeltas, mailMessages, mailSendJobs, messageSeries } from "../../db/schema";
import { queryRows } from "../../db/sql";
import type { AnyPgColumn } from "drizzle-orm/pg-core";

/*
 * A customer's mail as time series for the operator: per UTC hour or day, how many messages were accepted
 * by Postmark, delivered, bounced, complained about, first opened and first clicked. Each series counts
 * messages whose own time column (`accepted_at`, `delivered_at`, `bounced_at`, `complained_at`,
 * `first_opened_at`, `first_clicked_at`) falls in the bucket: the columns the provider-event processor sets
 * once per message and keeps for good, so a bucket reads the same after the 90-day event history is pruned,
 * and a job's series add up to its `stats` unique counts. Invariants:
 * - buckets are aligned in UTC (epoch seconds, so the database's time zone plays no part), `[start, end)`;
 * - every bucket of the range is present, empty ones as zeros, oldest first;
 * - a range holds at most `MAX_BUCKETS[granularity]` buckets, so one read is bounded whatever is asked.
 * Customer-wide, the hourly counts the triggers on `mail_messages` keep (`mail_message_series_counts` and
 * its unfolded deltas, lib/db/schema/mail-counts.ts) summed per bucket: a bucket of hours or days is whole
 * UTC hours, so the sum is exact, and no message row is read. For one job, one pass over the job's messages
 * (its `send_job_id` index), at most its `max_per_job` rows. Figures: `bench/mail-stats.ts`.
 */

export const STAT_GRANULARITIES = ["hour", "day"] as const;
export type StatGranularity = (typeof STAT_GRANULARITIES)[number];

const STAT_SERIES = messageSeries;
type StatSeries = (typeof STAT_SERIES)[number];
type Counts = Record<StatSeries, number>;
type StatBucket = { start: string } & Counts;

const STEP_MS: Record<StatGranularity, number> = { hour: 3_600_000, day: 86_400_000 };
/** 31 days of hours, a year and a day of days. */
export const MAX_BUCKETS: Record<StatGranularity, number> = { hour: 744, day: 366 };
/** Without `from`: the last 24 hours, or the last 30 days. */
const DEFAULT_BUCKETS: Record<StatGranularity, number> = { hour: 24, day: 30 };

const m = mailMessages;
const COLUMNS: Record<StatSeries, AnyPgColumn> = {
  accepted: m.acceptedAt,
  delivered: m.deliveredAt,
  bounced: m.bouncedAt,
  complained: m.complainedAt,
  opened: m.firstOpenedAt,
  clicked: m.firstClickedAt,
};

export type MailStatsInput = { granularity: StatGranularity; from?: Date; to?: Date; sendJobId?: string };

export type MailStats = { granularity: StatGranularity; from: string; to: string; send_job_id: string | null; totals: Counts; buckets: StatBucket[] };

/**
 * The range as whole buckets: `from` rounded down, `to` rounded up to a bucket boundary. Without `to`, the
 * bucket holding `now` is the last; without `from`, the default span before `to`.
 */
function statsRange(input: MailStatsInput, now: Date): { from: number; to: number } {
  const step = STEP_MS[input.granularity];
  const to = Math.ceil((input.to ?? new Date(now.getTime() + 1)).getTime() / step) * step;
  const from = input.from ? Math.floor(input.from.getTime() / step) * step : to - DEFAULT_BUCKETS[input.granularity] * step;
  if (input.from && input.to && input.from >= input.to) {
    throw new BadRequestError("`from` must be before `to`.", [{ path: "from", message: "Must be before `to`." }]);
  }
  const buckets = (to - from) / step;
  if (buckets < 1) {
    throw new BadRequestError("`from` must be before `to`.", [{ path: "from", message: "Must be before `to` (without `to`: before now)." }]);
  }
  if (buckets > MAX_BUCKETS[input.granularity]) {
    const most = MAX_BUCKETS[input.granularity];
    throw new BadRequestError(`At most ${most} ${input.granularity} buckets per request; this range has ${buckets}.`, [
      {
        path: "from",
        message: `The range from \`from\` to \`to\` may span at most ${most} ${input.granularity}s (${input.granularity === "hour" ? "31 days" : "366 days"}); ask for days, or a shorter range.`,
      },
    ]);
  }
  return { from, to };
}

export async function mailStats(db: Database, customerId: string, input: MailStatsInput, now: Date): Promise<MailStats> {
  const { from, to } = statsRange(input, now);
  const step = STEP_MS[input.granularity];
  if (input.sendJobId !== undefined) {
    const [job] = await db
      .select({ id: mailSendJobs.id })
      .from(mailSendJobs)
      .where(and(eq(mailSendJobs.customerId, customerId), eq(mailSendJobs.id, input.sendJobId)));
    if (!job) throw new NotFoundError("Send job");
  }
  const range = { from: new Date(from), to: new Date(to) };
  if (input.sendJobId === undefined) await foldSeriesDeltas(db);
  const rows = await queryRows<{ n: number; kind: StatSeries; count: number }>(db, statsStatement(customerId, input, range));
  const zero = (): Counts => ({ accepted: 0, delivered: 0, bounced: 0, complained: 0, opened: 0, clicked: 0 });
  const buckets: StatBucket[] = [];
  for (let start = from; start < to; start += step) buckets.push({ start: new Date(start).toISOString(), ...zero() });
  const totals = zero();
  for (const row of rows) {
    const entry = buckets[Number(row.n) - 1];
    if (!entry) continue;
    entry[row.kind] += row.count;
    totals[row.kind] += row.count;
  }
  return {
    granularity: input.granularity,
    from: range.from.toISOString(),
    to: range.to.toISOString(),
    send_job_id: input.sendJobId ?? null,
    totals,
    buckets,
  };
}

/** The counts of a range of whole buckets: rows `(n, kind, count)`, `n` the bucket's position from 1, only buckets with activity. */
export function statsStatement(customerId: string, input: Pick<MailStatsInput, "granularity" | "sendJobId">, range: { from: Date; to: Date }): SQL {
  const since = sql`${range.from.toISOString()}::timestamptz`;
  const until = sql`${range.to.toISOString()}::timestamptz`;
  const width = sql`${`1 ${input.granularity}`}::interval`;
  if (input.sendJobId === undefined) {
    // Hours of counts and unfolded deltas, each hour in the bucket that holds it.
    const c = mailMessageSeriesCounts;
    const d = mailMessageSeriesDeltas;
    return sql`select (floor(extract(epoch from (h.hour - ${since})) / extract(epoch from ${width})) + 1)::int as n, h.series as kind, sum(h.n)::int as count
      from (select ${c.hour} as hour, ${c.series} as series, ${c.count} as n from ${c}
              where ${c.customerId} = ${customerId} and ${c.hour} >= ${since} and ${c.hour} < ${until}
            union all
            select ${d.hour}, ${d.series}, ${d.delta} from ${d}
              where ${d.customerId} = ${customerId} and ${d.hour} >= ${since} and ${d.hour} < ${until}) as h
      group by 1, 2 having sum(h.n) <> 0`;
  }
  // One pass over the job's messages, binned by `date_bin` (aligned at `from`, whole buckets).
  return sql`select (floor(extract(epoch from (g.bin - ${since})) / extract(epoch from ${width})) + 1)::int as n, g.kind, g.count
    from (select date_bin(${width}, t.at, ${since}) as bin, t.kind, count(*)::int as count
          from ${m} cross join lateral (values ${sql.join(
            STAT_SERIES.map((kind) => sql`(${kind}::text, ${COLUMNS[kind]})`),
            sql`, `,
          )}) as t(kind, at)
          where ${m.sendJobId} = ${input.sendJobId} and ${m.customerId} = ${customerId} and t.at >= ${since} and t.at < ${until}
          group by 1, 2) as g`;
}

/** Moves the series deltas into the hourly counts, unless another reader is doing so now (its fold serves the next read). */
async function foldSeriesDeltas(db: Database): Promise<void> {
  const c = mailMessageSeriesCounts;
  const d = mailMessageSeriesDeltas;
  await db.transaction(async (tx) => {
    const [locked] = await queryRows<{ ok: boolean }>(tx, sql`select pg_try_advisory_xact_lock(hashtext('mail_message_series_counts')) as ok`);
    if (!locked?.ok) return;
    await tx.execute(sql`
      with moved as (delete from ${d} returning customer_id, hour, series, delta),
      sums as (select customer_id, hour, series, sum(delta)::bigint as n from moved group by 1, 2, 3)
      insert into ${c} (customer_id, hour, series, count)
      select customer_id, hour, series, n from sums
      on conflict (customer_id, hour, series) do update set count = ${c.count} + excluded.count`);
  });
}
