import { and, eq, lt, sql, type SQL } from "drizzle-orm";
import { adsInsightBlocks, adsInsightSnapshots, adsInsightSyncs, adsInsightWindows, type InsightBreakdown } from "../../db/schema";
import type { Database } from "../../db/client";
import { col, cols } from "../../db/sql";
import { addDays, daysBetween } from "./calendar";

/**
 * Day blocks of the snapshots (`ads_insight_blocks`): level L covers 2^L days, aligned at multiples of
 * 2^L days after `BLOCK_EPOCH`. Level 0 is built from the daily snapshot rows, level L from its two halves
 * at level L-1; reach is the highest single-day reach throughout. Sums run in float8 (exact below 2^53;
 * a sum of int8 would be numeric, many times slower) and are stored as int8. A query covers its range with the fewest
 * aligned blocks (`coverRange`), the same for every entity.
 */
export const BLOCK_EPOCH = "2000-01-01";
/** Up to 128-day blocks: a 90-day range is at most 12 blocks, 37 months about 20. */
export const MAX_LEVEL = 7;

/** An API breakdown: which snapshot dimension it reads and which value columns it groups by. */
export type BreakdownSource = { dimension: string; keys: { name: string; column: "value1" | "value2" }[] };

/**
 * Where each API breakdown comes from. `platform_position` is pulled together with `publisher_platform`
 * (Graph knows it only so) and grouped by position alone, so `feed` adds up Facebook's and Instagram's feeds.
 */
export const BREAKDOWN_SOURCES: Record<InsightBreakdown, BreakdownSource> = {
  "": { dimension: "", keys: [] },
  age: { dimension: "age", keys: [{ name: "age", column: "value1" }] },
  gender: { dimension: "gender", keys: [{ name: "gender", column: "value1" }] },
  "age,gender": {
    dimension: "age,gender",
    keys: [
      { name: "age", column: "value1" },
      { name: "gender", column: "value2" },
    ],
  },
  country: { dimension: "country", keys: [{ name: "country", column: "value1" }] },
  publisher_platform: { dimension: "publisher_platform", keys: [{ name: "publisher_platform", column: "value1" }] },
  platform_position: { dimension: "publisher_platform,platform_position", keys: [{ name: "platform_position", column: "value2" }] },
  impression_device: { dimension: "impression_device", keys: [{ name: "impression_device", column: "value1" }] },
  device_platform: { dimension: "device_platform", keys: [{ name: "device_platform", column: "value1" }] },
};

const ENTITY_KINDS = ["ad", "adset"] as const;

function blockStartOf(day: string, level: number): string {
  const size = 2 ** level;
  return addDays(BLOCK_EPOCH, Math.floor(daysBetween(BLOCK_EPOCH, day) / size) * size);
}

/** The fewest aligned blocks whose union is exactly `[since, until]`. */
export function coverRange(since: string, until: string): { level: number; start: string }[] {
  const out: { level: number; start: string }[] = [];
  let from = daysBetween(BLOCK_EPOCH, since);
  const end = daysBetween(BLOCK_EPOCH, until) + 1;
  while (from < end) {
    let level = 0;
    while (level < MAX_LEVEL && from % 2 ** (level + 1) === 0 && from + 2 ** (level + 1) <= end) level++;
    out.push({ level, start: addDays(BLOCK_EPOCH, from) });
    from += 2 ** level;
  }
  return out;
}

const blocks = adsInsightBlocks;
const snapshots = adsInsightSnapshots;
const METRIC_COLUMNS = [blocks.impressions, blocks.reach, blocks.clicks, blocks.spendMinor, blocks.conversions, blocks.conversionValueMinor];
const INSERT = sql`${blocks} (${cols(blocks.customerId, blocks.breakdown, blocks.entityKind, blocks.level, blocks.blockStart, blocks.entityId, blocks.adSetId, blocks.key1, blocks.key2, ...METRIC_COLUMNS)})`;
const UPDATE = sql.join(
  METRIC_COLUMNS.map((column) => sql`${col(column)} = excluded.${col(column)}`),
  sql`, `,
);
const CONFLICT = sql`(${cols(blocks.customerId, blocks.breakdown, blocks.entityKind, blocks.level, blocks.blockStart, blocks.entityId, blocks.key1, blocks.key2)})`;

/**
 * Rebuilds every block that contains a day of `[since, until]`, for every breakdown and both entity kinds,
 * level by level. Called after the days' snapshots were stored; repeating it gives the same blocks.
 * The blocks' version is raised before and after, so a cached window computed from a half-rebuilt state
 * (or any earlier one) is never read again; the stale windows are removed at the end.
 */
export async function rebuildBlocks(db: Database, customerId: string, since: string, until: string): Promise<void> {
  await raiseBlocksVersion(db, customerId);
  for (const [breakdown, source] of Object.entries(BREAKDOWN_SOURCES)) {
    const key1 = source.keys[0] ? snapshots[source.keys[0].column] : sql`''`;
    const key2 = source.keys[1] ? snapshots[source.keys[1].column] : sql`''`;
    for (const kind of ENTITY_KINDS) {
      const entity = kind === "ad" ? snapshots.adId : snapshots.adSetId;
      // Level 0: one day. The day's rows of an entity and key are added up first (an ad set's ads, a
      // position on two platforms), so reach is that day's reach.
      await db.execute(sql`
        insert into ${INSERT}
        select ${customerId}::uuid, ${breakdown}::text, ${kind}::text, 0, ${snapshots.date}, ${entity}, ${snapshots.adSetId}, ${key1}, ${key2},
               sum(${snapshots.impressions}::float8), sum(${snapshots.reach}::float8), sum(${snapshots.clicks}::float8), sum(${snapshots.spendMinor}::float8),
               sum(${snapshots.conversions}::float8), sum(${snapshots.conversionValueMinor}::float8)
        from ${snapshots}
        where ${snapshots.customerId} = ${customerId} and ${snapshots.dimension} = ${source.dimension} and ${snapshots.date} between ${since} and ${until}
        group by 5, 6, 7, 8, 9
        on conflict ${CONFLICT} do update set ${UPDATE}`);
      for (let level = 1; level <= MAX_LEVEL; level++) {
        const size = 2 ** level;
        await db.execute(sql`
          insert into ${INSERT}
          select ${blocks.customerId}, ${blocks.breakdown}, ${blocks.entityKind}, ${sql.raw(String(level))},
                 date '${sql.raw(BLOCK_EPOCH)}' + ((${blocks.blockStart} - date '${sql.raw(BLOCK_EPOCH)}') / ${sql.raw(String(size))}) * ${sql.raw(String(size))},
                 ${blocks.entityId}, ${blocks.adSetId}, ${blocks.key1}, ${blocks.key2},
                 sum(${blocks.impressions}::float8), max(${blocks.reach}), sum(${blocks.clicks}::float8), sum(${blocks.spendMinor}::float8),
                 sum(${blocks.conversions}::float8), sum(${blocks.conversionValueMinor}::float8)
          from ${blocks}
          where ${blocks.customerId} = ${customerId} and ${blocks.breakdown} = ${breakdown} and ${blocks.entityKind} = ${kind} and ${blocks.level} = ${level - 1}
            and ${blocks.blockStart} between ${blockStartOf(since, level)} and ${addDays(blockStartOf(until, level), size - 1)}
          group by ${blocks.customerId}, ${blocks.breakdown}, ${blocks.entityKind}, 5, ${blocks.entityId}, ${blocks.adSetId}, ${blocks.key1}, ${blocks.key2}
          on conflict ${CONFLICT} do update set ${UPDATE}`);
      }
    }
  }
  const version = await raiseBlocksVersion(db, customerId);
  await db.delete(adsInsightWindows).where(and(eq(adsInsightWindows.customerId, customerId), lt(adsInsightWindows.version, version)));
}

async function raiseBlocksVersion(db: Database, customerId: string): Promise<number> {
  const [sync] = await db
    .update(adsInsightSyncs)
    .set({ blocksVersion: sql`${adsInsightSyncs.blocksVersion} + 1` })
    .where(eq(adsInsightSyncs.customerId, customerId))
    .returning({ version: adsInsightSyncs.blocksVersion });
  return sync?.version ?? 0;
}

/**
 * The blocks of `[since, until]` as a `values` list `r(level, block_start)`: joined on the primary key's
 * prefix, every block is one index range (an `or` of conditions would scan the customer's whole breakdown).
 */
export function blockRanges(since: string, until: string): SQL {
  const rows = coverRange(since, until).map((block) => sql`(${block.level}::int2, ${block.start}::date)`);
  return sql`(values ${sql.join(rows, sql`, `)}) as r(level, block_start)`;
}
