import type { Database } from "../../db/client";
import type { Logger } from "../../core/logger";
import { BREAKDOWNS, queryInsights, type DatePreset } from "./query";

/** The presets a portal opens with (`last_30d` is the default); their windows are summed right after a snapshot run. */
export const WARM_PRESETS: readonly DatePreset[] = ["last_7d", "last_30d", "last_90d"];

/**
 * Fills the window cache for the usual presets, every breakdown and both levels, so the first dashboard
 * after the nightly run is answered from it. A cache only: a failure is logged and the queries sum the
 * blocks themselves.
 */
export async function warmWindows(deps: { db: Database; clock: { now(): Date }; logger: Logger }, customerId: string): Promise<void> {
  try {
    for (const preset of WARM_PRESETS) {
      for (const level of ["adset", "ad"] as const) {
        for (const breakdowns of ["", ...BREAKDOWNS]) {
          await queryInsights(deps, customerId, { level, date_range: { preset }, breakdowns, fields: "spend" });
        }
      }
    }
  } catch (error) {
    deps.logger.warn("insights windows not warmed", { customer_id: customerId, error: error instanceof Error ? error.message : String(error) });
  }
}
