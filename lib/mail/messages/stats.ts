import { and, eq, sql, type SQL } from "drizzle-orm";
import { BadRequestError, NotFoundError } from "../../core/errors";
import type { Database } from "../../db/client";
import { mailMessages, mailSendJobs } from "../../db/schema";
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
 * Customer-wide, each bucket of each series is a count over one range of a `(customer_id, <time>)` index
 * (index-only, nothing computed per message: several times faster than binning every row); for one job,
 * one pass over the job's messages (`(send_job_id, status)`), at most its `max_per_job` rows. Figures:
 * `bench/mail-stats.ts`.
 */

export const STAT_GRANULARITIES = ["hour", "day"] as const;
export type StatGranularity = (typeof STAT_GRANULARITIES)[number];

const STAT_SERIES = ["accepted", "delivered", "bounced", "complained", "opened", "clicked"] as const;
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
    // Per bucket and series, a count over one index range: no expression is computed per message.
    return sql`select b.n::int as n, s.kind, s.count from generate_series(${since}, ${until} - ${width}, ${width}) with ordinality as b(start, n)
      cross join lateral (values ${sql.join(
        STAT_SERIES.map(
          (kind) =>
            sql`(${kind}::text, (select count(*)::int from ${m} where ${m.customerId} = ${customerId} and ${COLUMNS[kind]} >= b.start and ${COLUMNS[kind]} < b.start + ${width}))`,
        ),
        sql`, `,
      )}) as s(kind, count)
      where s.count > 0`;
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
