import { and, eq, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { adsInsightSyncs, adsInsightWindows, type InsightBreakdown } from "../../db/schema";

export type DateRangeInput = { preset?: string; json?: string; since?: string; until?: string };

/**
 * The window cache (`ads_insight_windows`): a preset query's aggregated rows over all entities, kept for
 * the blocks' version they were summed from. A window is read only while that version is current; the
 * rebuild of the blocks raises the version (before and after) and removes older windows, so a cached
 * answer is never older than the blocks.
 */
export type WindowKey = { customerId: string; breakdown: InsightBreakdown; entityKind: "ad" | "adset"; since: string; until: string };

/** Whether the range was given as a preset (only those are cached: a bounded set of ranges per day). */
export function isPreset(input: DateRangeInput): boolean {
  return input.since === undefined && input.until === undefined && !input.preset?.trim().startsWith("{");
}

function matches(key: WindowKey) {
  return and(
    eq(adsInsightWindows.customerId, key.customerId),
    eq(adsInsightWindows.breakdown, key.breakdown),
    eq(adsInsightWindows.entityKind, key.entityKind),
    eq(adsInsightWindows.since, key.since),
    eq(adsInsightWindows.until, key.until),
  );
}

/** The cached rows (JSON) when a window of the current blocks' version exists. */
export async function readWindow(db: Database, key: WindowKey): Promise<string | undefined> {
  const [hit] = await db
    .select({ rows: adsInsightWindows.rows })
    .from(adsInsightWindows)
    .innerJoin(adsInsightSyncs, and(eq(adsInsightSyncs.customerId, adsInsightWindows.customerId), eq(adsInsightSyncs.blocksVersion, adsInsightWindows.version)))
    .where(matches(key));
  return hit?.rows;
}

/** Keeps rows summed at `version`; a window of a newer version is never replaced by an older one. */
export async function storeWindow(db: Database, key: WindowKey, version: number, rows: string): Promise<void> {
  await db
    .insert(adsInsightWindows)
    .values({ ...key, version, rows })
    .onConflictDoUpdate({
      target: [adsInsightWindows.customerId, adsInsightWindows.breakdown, adsInsightWindows.entityKind, adsInsightWindows.since, adsInsightWindows.until],
      set: { version, rows, createdAt: sql`now()` },
      setWhere: sql`${adsInsightWindows.version} < ${version}`,
    });
}
