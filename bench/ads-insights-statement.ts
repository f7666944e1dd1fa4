import { mkdtempSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { sql, type SQL } from "drizzle-orm";
import { blockRanges } from "../lib/ads/insights/blocks";
import { aggregateBlocks } from "../lib/ads/insights/query";
import { openDatabase } from "../lib/db/client";
import { queryRows } from "../lib/db/sql";
import { benchPostgres } from "./postgres";

/**
 * Where the time of the insights pair breakdown's statement goes, on a synthetic day-block table of the
 * insights bench's shape (200 ads × 18 `age,gender` values × 90 days, levels 0–7, written by SQL in seconds
 * instead of the full ingest). Statements interleaved in every round, so the machine's load weighs on each
 * alike, each one step less than the one before:
 * - the query's own statement and the parse of its answer (`aggregateBlocks`, as `GET /v1/insights` runs it),
 *   the same without its `order by`, and the same JSON built but only its length handed over;
 * - 400 KB of text handed over and nothing else (the cost of the hand-over itself);
 * - the blocks read, grouped, sorted and counted; read and grouped only; read, grouped and summed;
 * - a lower bound for running totals per day: two day rows per ad and value merge-joined, their differences
 *   handed over as the query hands its rows over (what a range would read if each day row held the sums
 *   since the first day; no sums at all).
 * PGlite by default; `--postgres` on a server of its own (bench/postgres.ts).
 */
const ADS = 200;
const ROUNDS = 60;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;

export async function benchInsightsStatement(options: { postgres?: boolean } = {}): Promise<void> {
  const postgres = options.postgres ? await benchPostgres() : undefined;
  const url = postgres ? await postgres.database("bench_insights_statement") : undefined;
  const handle = await openDatabase(url ? { url, migrate: true } : { dataDir: mkdtempSync(join(tmpdir(), "bench-insights-statement-")) });
  const db = handle.db;
  try {
    const [customer] = await queryRows<{ id: string }>(db, sql`insert into customers (name) values ('insights statement bench') returning id`);
    if (!customer) throw new Error("customer insert failed");
    const customerId = customer.id;
    await db.execute(sql`insert into ads_insight_syncs (customer_id, timezone_name, currency) values (${customerId}, 'UTC', 'EUR')`);
    const range = { since: "2026-08-31", until: "2026-11-28" };
    const setup = performance.now();
    await db.execute(sql`insert into ads_insight_blocks
      select ${customerId}::uuid, 'age,gender', 'ad', 0, d::date, a.id, a.ad_set_id, age, gender, (random() * 1000)::int8, (random() * 500)::int8,
             (random() * 50)::int8, (random() * 10000)::int8, (random() * 5)::int8, (random() * 20000)::int8
      from (select gen_random_uuid() as id, gen_random_uuid() as ad_set_id from generate_series(1, ${ADS})) a,
           generate_series(${range.since}::date, ${range.until}::date, interval '1 day') d,
           unnest(array['18-24', '25-34', '35-44', '45-54', '55-64', '65+']) age, unnest(array['female', 'male', 'unknown']) gender`);
    for (let level = 1; level <= 7; level++) {
      const size = sql.raw(String(2 ** level));
      await db.execute(sql`insert into ads_insight_blocks
        select customer_id, breakdown, entity_kind, ${sql.raw(String(level))}, date '2000-01-01' + ((block_start - date '2000-01-01') / ${size}) * ${size}, entity_id, ad_set_id, key1, key2,
               sum(impressions), max(reach), sum(clicks), sum(spend_minor), sum(conversions), sum(conversion_value_minor)
        from ads_insight_blocks where customer_id = ${customerId} and level = ${sql.raw(String(level - 1))} group by 1, 2, 3, 4, 5, 6, 7, 8, 9`);
    }
    await db.execute(sql`vacuum analyze ads_insight_blocks`);
    const engine = postgres ? postgres.label : "PGlite";
    process.stdout.write(`insights statement bench (${engine}): synthetic blocks written in ${((performance.now() - setup) / 1000).toFixed(1)} s\n`);

    const own = sql`customer_id = ${customerId} and breakdown = 'age,gender' and entity_kind = 'ad'`;
    const statements: [string, () => Promise<number>][] = [
      ["the query's statement + parse", async () => JSON.parse((await aggregateBlocks(db, customerId, "age,gender", range, { level: "ad" })).rows).length],
      [
        "json_agg without order by + parse",
        async () => {
          const [row] = await queryRows<{ rows: string }>(
            db,
            sql`select json_agg(json_build_array(entity_id, key1, key2, a, b, c, d, e, f))::text as rows from (select entity_id, key1, key2, sum(impressions::float8)::int8 a, max(reach) b, sum(clicks::float8)::int8 c, sum(spend_minor::float8)::int8 d, sum(conversions::float8)::int8 e, sum(conversion_value_minor::float8)::int8 f from ${blockRanges(range.since, range.until)} join ads_insight_blocks b on b.level = r.level and b.block_start = r.block_start where ${own} group by entity_id, key1, key2) s`,
          );
          return JSON.parse(row?.rows ?? "[]").length;
        },
      ],
      [
        "json built, length only",
        async () =>
          count(
            sql`select length(json_agg(json_build_array(entity_id, key1, key2, a, b, c, d, e, f))::text)::int as n from (select entity_id, key1, key2, sum(impressions::float8)::int8 a, max(reach) b, sum(clicks::float8)::int8 c, sum(spend_minor::float8)::int8 d, sum(conversions::float8)::int8 e, sum(conversion_value_minor::float8)::int8 f from ${blockRanges(range.since, range.until)} join ads_insight_blocks b on b.level = r.level and b.block_start = r.block_start where ${own} group by entity_id, key1, key2) s`,
          ),
      ],
      [
        "400 KB of text handed over",
        async () => {
          const [row] = await queryRows<{ t: string }>(db, sql`select repeat('x', 400000) as t`);
          return row?.t.length ?? 0;
        },
      ],
      ["sorted, count", async () => count(sql`select count(*)::int as n from (select * from (${summed(own, range)}) s order by 1, 2, 3 offset 0) t`)],
      // A sum no outer expression reads is not computed at all: the count reads every one.
      ["reading and grouping only (count)", async () => count(sql`select count(*)::int as n from (${summed(own, range)}) s`)],
      [
        "reading, grouping and summing (count)",
        async () => count(sql`select count(*)::int as n from (${summed(own, range)}) s where (a, b, c, d, e, f) is not null`),
      ],
      [
        "prefix-sum lower bound (two day rows merge-joined) + parse",
        async () => {
          const [row] = await queryRows<{ rows: string }>(
            db,
            sql`select json_agg(json_build_array(u.entity_id, u.key1, u.key2, u.impressions - s.impressions, greatest(u.reach, s.reach), u.clicks - s.clicks,
                   u.spend_minor - s.spend_minor, u.conversions - s.conversions, u.conversion_value_minor - s.conversion_value_minor))::text as rows
                from (select * from ads_insight_blocks where ${own} and level = 0 and block_start = ${range.until} order by entity_id, key1, key2) u
                full join (select * from ads_insight_blocks where ${own} and level = 0 and block_start = ${range.since} order by entity_id, key1, key2) s
                using (entity_id, key1, key2)`,
          );
          return JSON.parse(row?.rows ?? "[]").length;
        },
      ],
    ];
    async function count(statement: SQL): Promise<number> {
      const [row] = await queryRows<{ n: number }>(db, statement);
      return row?.n ?? 0;
    }
    const timings = statements.map(() => [] as number[]);
    const rows = statements.map(() => 0);
    for (let round = 0; round < ROUNDS + 5; round++) {
      for (const [index, [, run]] of statements.entries()) {
        const start = performance.now();
        rows[index] = await run();
        if (round >= 5) timings[index]?.push(performance.now() - start);
      }
    }
    for (const [index, [label]] of statements.entries()) {
      const sorted = (timings[index] ?? []).sort((a, b) => a - b);
      process.stdout.write(
        `insights statement bench (${engine}, age,gender, ${rows[index]} rows): ${label} p50 ${percentile(sorted, 50).toFixed(1)} ms, p95 ${percentile(sorted, 95).toFixed(1)} ms (load average ${loadavg()[0]?.toFixed(1)})\n`,
      );
    }
  } finally {
    await handle.close();
    postgres?.stop();
  }
}

/** The blocks of the 90 days the query reads, summed per ad and value as the query sums them. */
function summed(own: SQL, range: { since: string; until: string }): SQL {
  return sql`select entity_id, key1, key2, sum(impressions::float8) as a, max(reach) as b, sum(clicks::float8) as c, sum(spend_minor::float8) as d,
                    sum(conversions::float8) as e, sum(conversion_value_minor::float8) as f
             from ${blockRanges(range.since, range.until)}
             join ads_insight_blocks b on b.level = r.level and b.block_start = r.block_start
             where ${own} group by entity_id, key1, key2`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchInsightsStatement({ postgres: process.argv.includes("--postgres") });
}
