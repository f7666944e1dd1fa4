import { z } from "@hono/zod-openapi";
import { InsightRow, InsightsQuery } from "../../../ads";

export const tags = ["Ads activity"];

/** One ad set on one day: the metrics of an insights row, the day instead of a range, and the ad set's name. */
const AdSetDayRow = InsightRow.omit({ id: true, adset_id: true, platform_id: true, date_start: true, date_stop: true, breakdown: true })
  .extend({
    date: z.string().openapi({ description: "The day (YYYY-MM-DD, ad account time zone).", example: "2026-01-14" }),
    adset_id: z.uuid().openapi({ description: "Internal id of the ad set.", example: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d" }),
    adset_name: z.string().openapi({ description: "The ad set's name, as the customer's API shows it.", example: "demo-20260115-001" }),
    platform_id: z.string().openapi({ description: "The platform's id of the ad set.", example: "120210000000000789" }),
  })
  .openapi("AdSetDayInsightRow");

export const AdSetDailyInsights = z
  .object({
    since: z.string().openapi({ description: "First day of the range (YYYY-MM-DD, ad account time zone).", example: "2026-01-01" }),
    until: z.string().openapi({ description: "Last day of the range, inclusive.", example: "2026-01-30" }),
    time_zone: z
      .string()
      .openapi({ description: "The ad account's time zone, in which days are counted (UTC until the first snapshot).", example: "Europe/Berlin" }),
    currency: z
      .string()
      .nullable()
      .openapi({ description: "The ad account's currency of `spend` and `conversion_value`; null until the first snapshot.", example: "EUR" }),
    rows: z.array(AdSetDayRow).openapi({
      description:
        "Every ad set with a snapshot in the range, one row for every day of it (days without a snapshot as zeros, ratios null), ordered by ad set name, then day.",
    }),
  })
  .openapi("AdSetDailyInsights");

export const AdSetDailyInsightsQuery = InsightsQuery.pick({ date_range: true, "date_range[since]": true, "date_range[until]": true, fields: true }).extend({
  adset_id: z
    .uuid()
    .optional()
    .openapi({ description: "Only this ad set. Another customer's ad set answers 404.", example: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d" }),
});
