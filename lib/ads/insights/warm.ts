import type { Database } from "../../db/client";
import type { Logger } from "../../base/logger";
import { INSIGHT_BREAKDOWNS } from "../../db/schema";
import { aggregateBlocks, resolveDateRange, timeZoneOf, type DatePreset } from "./query";
import { storeWindow } from "./windows";

/** The presets a portal opens with (`last_30d` is the default); their windows are summed right after a snapshot run. */
const WARM_PRESETS: readonly DatePreset[] = ["last_7d", "last_30d", "last_90d"];

/**
 * Fills the window cache for the usual presets, every breakdown and both levels, so the first dashboard
 * after the nightly run is answered from it: the same sums a query would keep, without building its rows.
 * A cache only: a failure is logged and the queries sum the blocks themselves.
 */
export async function warmWindows(deps: { db: Database; clock: { now(): Date }; logger: Logger }, customerId: string): Promise<void> {
  const { db } = deps;
  try {
    const timeZone = await timeZoneOf(db, customerId);
    for (const preset of WARM_PRESETS) {
      const range = resolveDateRange({ preset }, timeZone, deps.clock.now());
      for (const level of ["adset", "ad"] as const) {
        for (const breakdown of INSIGHT_BREAKDOWNS) {
          const aggregate = await aggregateBlocks(db, customerId, breakdown, range, { level });
          if (aggregate.version !== null) await storeWindow(db, { customerId, breakdown, entityKind: level, ...range }, aggregate.version, aggregate.rows);
        }
      }
    }
  } catch (error) {
    deps.logger.warn("insights windows not warmed", { customer_id: customerId, error: error instanceof Error ? error.message : String(error) });
  }
}
