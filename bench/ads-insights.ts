import { loadavg } from "node:os";
import { benchDataDir } from "./data-dir";
import { eq, sql } from "drizzle-orm";
import { bootRuntime } from "../lib/bootstrap";
import { snapshotAccount } from "../lib/ads/insights/snapshots";
import { aggregateBlocks, aggregateStatement } from "../lib/ads/insights/query";
import { benchPostgres } from "./postgres";
import { DEMO_ADS } from "../lib/ads/seed";
import { findTargetByKey } from "../lib/ads/targets/service";
import { adsAdSets, adsAds, adsCreatives, adsInsightSyncs } from "../lib/db/schema";
import { seedDemo } from "../lib/seed";

/**
 * Insights at the size the issue names: 200 ads with 90 days of snapshots (every breakdown, ~850,000 rows),
 * pulled from the embedded Graph simulator by the real snapshot job (ingest rate), then
 * `GET /ads/v1/insights?level=ad&date_range=last_90d&breakdowns=…` through the whole app (auth, rate limit,
 * validation, query, envelope). Target: p50 ≤ 30 ms with a breakdown, 2 cores. Three figures per
 * breakdown: a preset answered from the window cache (the snapshot run warms last_7d/30d/90d), the same
 * preset with the cache emptied before each request (summed from the blocks, then kept), and the same 90
 * days as a custom range (never cached). The ingest figure includes the warming. Beside each request figure,
 * the aggregation statement's own p50 (the database's share of the answer).
 *
 * On PGlite by default; `--postgres` runs on a PostgreSQL server of its own (bench/postgres.ts, or
 * DATABASE_URL); `--explain` prints `EXPLAIN (ANALYZE, BUFFERS)` of the pair breakdown's statement over
 * the custom 90-day range.
 */
const ADS = 200;
const AD_SETS = 10;
const DAYS = 90;
const QUERIES = 40;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;

export async function benchAdsInsights(options: { postgres?: boolean; explain?: boolean } = {}): Promise<void> {
  const postgres = options.postgres ? await benchPostgres() : undefined;
  const databaseUrl = postgres ? await postgres.database("bench_insights") : "";
  const engine = postgres ? postgres.label : "PGlite";
  const runtime = await bootRuntime({
    ...process.env,
    DATABASE_URL: databaseUrl,
    DATA_DIR: benchDataDir("bench-insights-"),
    RATE_LIMIT_PER_MINUTE: "100000000",
    LOG_LEVEL: "warn",
  });
  try {
    const demo = await seedDemo(runtime.deps, runtime.app.adsDeps);
    if (!demo.keys) throw new Error("bench needs a fresh demo customer");
    const simulator = runtime.deps.providers.graphSimulator?.simulator;
    if (!simulator) throw new Error("bench needs the embedded Graph simulator");
    const deps = runtime.app.adsDeps;
    const customerId = demo.customerId;

    // 200 ads, 90 days old, in our records and in the simulator (the demo's own six are removed first).
    const { state } = simulator.controls;
    for (const ad of [...state.ads.keys()]) state.ads.delete(ad);
    await runtime.deps.db.delete(adsAds).where(eq(adsAds.customerId, customerId));
    const target = await findTargetByKey(runtime.deps.db, customerId, "demo");
    const [creative] = await runtime.deps.db.select({ id: adsCreatives.id }).from(adsCreatives).where(eq(adsCreatives.customerId, customerId)).limit(1);
    if (!target || !creative) throw new Error("demo target or creative missing");
    const createdAt = new Date(Date.now() - (DAYS - 1) * 86_400_000 - 3_600_000);
    let nextId = 130_000_000_000_000_000n;
    for (let s = 0; s < AD_SETS; s++) {
      const adSetPlatformId = String(nextId++);
      const [adSet] = await runtime.deps.db
        .insert(adsAdSets)
        .values({
          customerId,
          targetId: target.id,
          name: `bench-${s}`,
          dailyBudgetCents: 50_000,
          targeting: {},
          status: "ACTIVE",
          platformAdSetId: adSetPlatformId,
          createdAt,
        })
        .returning({ id: adsAdSets.id });
      if (!adSet) throw new Error("ad set insert failed");
      state.adsets.set(adSetPlatformId, {
        id: adSetPlatformId,
        accountId: DEMO_ADS.adAccountId,
        campaignId: DEMO_ADS.campaignId,
        name: `bench-${s}`,
        status: "ACTIVE",
        billingEvent: "IMPRESSIONS",
        optimizationGoal: "LINK_CLICKS",
        targeting: {},
        dailyBudget: 50_000,
        createdMs: createdAt.getTime(),
        updatedMs: createdAt.getTime(),
      });
      const rows = Array.from({ length: ADS / AD_SETS }, (_, a) => ({ platformAdId: String(nextId++), name: `bench-${s}-ad${a}` }));
      await runtime.deps.db.insert(adsAds).values(
        rows.map((row) => ({
          customerId,
          adSetId: adSet.id,
          creativeId: creative.id,
          name: row.name,
          status: "ACTIVE" as const,
          effectiveStatus: "ACTIVE",
          platformAdId: row.platformAdId,
          createdAt,
        })),
      );
      for (const row of rows) {
        state.ads.set(row.platformAdId, {
          id: row.platformAdId,
          accountId: DEMO_ADS.adAccountId,
          adsetId: adSetPlatformId,
          creativeId: "0",
          name: row.name,
          status: "ACTIVE",
          reviewStartMs: 0,
          createdMs: createdAt.getTime(),
          updatedMs: createdAt.getTime(),
        });
      }
    }
    // A fresh backfill: forget the demo's earlier snapshot run.
    await runtime.deps.db.execute(sql`delete from ads_insight_snapshots where customer_id = ${customerId}`);
    await runtime.deps.db.update(adsInsightSyncs).set({ syncedThrough: null }).where(eq(adsInsightSyncs.customerId, customerId));

    const ingestStart = performance.now();
    const ingest = await snapshotAccount(deps, customerId);
    const ingestSeconds = (performance.now() - ingestStart) / 1000;
    process.stdout.write(
      `ads insights ingest (${engine}): ${ingest.rows.toLocaleString("en")} rows (${ADS} ads × ${DAYS} days × every breakdown) in ${ingestSeconds.toFixed(1)} s = ${Math.round(ingest.rows / ingestSeconds).toLocaleString("en")} rows/s (Graph simulator over loopback HTTP + upsert)\n`,
    );
    // What autovacuum does on a server after a large load; PGlite has none.
    await runtime.deps.db.execute(sql`vacuum analyze ads_insight_snapshots`);
    await runtime.deps.db.execute(sql`vacuum analyze ads_insight_blocks`);

    const key = demo.keys.adsReporting;
    // The answer's time is to its last byte; the bench's own parse of the body comes after the clock stops.
    async function request(query: string): Promise<{ ms: number; rows: number }> {
      const start = performance.now();
      const response = await runtime.app.root.request(`/ads/v1/insights?${query}`, { headers: { authorization: `Bearer ${key}` } });
      const bytes = await response.arrayBuffer();
      const ms = performance.now() - start;
      const body = JSON.parse(new TextDecoder().decode(bytes)) as { data: unknown[] };
      if (response.status !== 200) throw new Error(`insights answered ${response.status}: ${JSON.stringify(body)}`);
      return { ms, rows: body.data.length };
    }
    async function measure(query: string, before?: () => Promise<unknown>): Promise<{ p50: number; p95: number; rows: number }> {
      const timings: number[] = [];
      let rows = 0;
      for (let i = 0; i < QUERIES + 5; i++) {
        await before?.();
        const result = await request(query);
        if (i >= 5) timings.push(result.ms);
        rows = result.rows;
      }
      timings.sort((a, b) => a - b);
      return { p50: percentile(timings, 50), p95: percentile(timings, 95), rows };
    }
    const forgetWindows = () => runtime.deps.db.execute(sql`delete from ads_insight_windows where customer_id = ${customerId}`);
    // The same 90 days as last_90d, given as a custom range: never cached, summed from the blocks each time.
    const probe = await runtime.app.root.request("/ads/v1/insights?level=adset&date_range=last_90d&fields=spend", {
      headers: { authorization: `Bearer ${key}` },
    });
    const sample = ((await probe.json()) as { data: { date_start: string; date_stop: string }[] }).data;
    const custom = encodeURIComponent(JSON.stringify({ since: sample[0]?.date_start, until: sample[0]?.date_stop }));
    const ms = (value: number) => `${value.toFixed(1)} ms`;
    const range = { since: sample[0]?.date_start ?? "", until: sample[0]?.date_stop ?? "" };
    // The statement alone, as the query runs it for the custom range: the database's share of an answer.
    async function statementP50(breakdown: "" | "gender" | "country" | "age" | "age,gender", level: "ad" | "adset"): Promise<number> {
      const timings: number[] = [];
      for (let i = 0; i < QUERIES + 5; i++) {
        const start = performance.now();
        await aggregateBlocks(runtime.deps.db, customerId, breakdown, range, { level });
        if (i >= 5) timings.push(performance.now() - start);
      }
      timings.sort((a, b) => a - b);
      return percentile(timings, 50);
    }
    if (options.explain) {
      for (let i = 0; i < 5; i++) await aggregateBlocks(runtime.deps.db, customerId, "age,gender", range, { level: "ad" });
      const plan = (await runtime.deps.db.execute(
        sql`explain (analyze, buffers) ${aggregateStatement(customerId, "age,gender", range, { level: "ad" })}`,
      )) as unknown as { rows: { "QUERY PLAN": string }[] };
      process.stdout.write(`ads insights EXPLAIN (ANALYZE, BUFFERS), ${engine}, age,gender over ${range.since}..${range.until}:\n`);
      for (const row of plan.rows) process.stdout.write(`  ${row["QUERY PLAN"]}\n`);
    }
    for (const [label, query, breakdown, level] of [
      ["breakdowns=gender", "level=ad&breakdowns=gender", "gender", "ad"],
      ["breakdowns=country", "level=ad&breakdowns=country", "country", "ad"],
      ["breakdowns=age", "level=ad&breakdowns=age", "age", "ad"],
      ["breakdowns=age,gender", "level=ad&breakdowns=age,gender", "age,gender", "ad"],
      ["no breakdown", "level=ad", "", "ad"],
      ["level=adset, breakdowns=gender", "level=adset&breakdowns=gender", "gender", "adset"],
    ] as const) {
      const cached = await measure(`${query}&date_range=last_90d`);
      const cold = await measure(`${query}&date_range=last_90d`, forgetWindows);
      const blocks = await measure(`${query}&date_range=${custom}`);
      const statement = await statementP50(breakdown, level);
      process.stdout.write(
        `ads insights query (${engine}, ${ADS} ads × ${DAYS} days, ${label}, ${cached.rows} rows): p50/p95 last_90d cached ${ms(cached.p50)}/${ms(cached.p95)}, not cached (summed from the blocks, then kept) ${ms(cold.p50)}/${ms(cold.p95)}, custom 90-day range ${ms(blocks.p50)}/${ms(blocks.p95)} (target p50 ≤ 30 ms; the statement alone ${ms(statement)}; load average ${loadavg()[0]?.toFixed(1)})\n`,
      );
    }
  } finally {
    await runtime.close();
    postgres?.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchAdsInsights({ postgres: process.argv.includes("--postgres"), explain: process.argv.includes("--explain") });
}
