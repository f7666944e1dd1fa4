import { z } from "@hono/zod-openapi";
import { INSIGHT_BREAKDOWNS, type InsightBreakdown } from "../../db/schema";

/** The vocabulary of `GET /v1/insights`, read by the query (`lib/ads/insights/query.ts`) as the API states it. */
export const INSIGHT_FIELDS = ["spend", "impressions", "reach", "clicks", "ctr", "cpc", "cpm", "conversions", "conversion_value", "roas", "cpa"] as const;

export const DATE_PRESETS = [
  "today",
  "yesterday",
  "last_3d",
  "last_7d",
  "last_14d",
  "last_28d",
  "last_30d",
  "last_90d",
  "this_month",
  "last_month",
  "this_week_mon_today",
  "last_week_mon_sun",
  "maximum",
] as const;

/** The breakdowns a query may name: the one vocabulary of the schema (`INSIGHT_BREAKDOWNS`), without `''` (none). */
export type Breakdown = Exclude<InsightBreakdown, "">;
export const BREAKDOWNS: readonly Breakdown[] = INSIGHT_BREAKDOWNS.filter((breakdown): breakdown is Breakdown => breakdown !== "");

const number = (description: string, example: number) => z.number().openapi({ description, example });
const derived = (description: string, example: number) =>
  z
    .number()
    .nullable()
    .openapi({ description: `${description} Null where the denominator is 0.`, example });

export const InsightRow = z
  .object({
    id: z.uuid().openapi({ description: "Internal id of the ad set (`level=adset`) or ad (`level=ad`).", example: "5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a" }),
    adset_id: z.uuid().openapi({ description: "Internal id of the ad set (equal to `id` at `level=adset`).", example: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d" }),
    platform_id: z.string().openapi({ description: "The platform's id of the ad set or ad.", example: "120210000000000789" }),
    date_start: z.string().openapi({ description: "First day of the range (YYYY-MM-DD, ad account time zone).", example: "2026-01-01" }),
    date_stop: z.string().openapi({ description: "Last day of the range (YYYY-MM-DD, ad account time zone).", example: "2026-01-30" }),
    spend: number("Spend in major units of the account currency (sum).", 412.37).optional(),
    impressions: number("Impressions (sum).", 58210).optional(),
    reach: number("People reached: exact for one day; over several days the highest single-day reach (a lower bound).", 31877).optional(),
    clicks: number("Link clicks (sum).", 803).optional(),
    ctr: derived("Click-through rate in percent: clicks / impressions × 100 over the sums.", 1.3795).optional(),
    cpc: derived("Cost per click: spend / clicks.", 0.5135).optional(),
    cpm: derived("Cost per 1,000 impressions: spend / impressions × 1,000.", 7.0842).optional(),
    conversions: number("Purchases attributed by the pixel (`offsite_conversion.fb_pixel_purchase`), sum; revised by the platform for 7 days.", 31).optional(),
    conversion_value: number("Value of those conversions in major units of the account currency (sum).", 1520.4).optional(),
    roas: derived("Return on ad spend: conversion_value / spend.", 3.687).optional(),
    cpa: derived("Cost per conversion: spend / conversions.", 13.3023).optional(),
    breakdown: z
      .record(z.string(), z.string())
      .optional()
      .openapi({
        description: "Only with `breakdowns`: the breakdown values of this row, keys in the order given.",
        example: { age: "25-34", gender: "female" },
      }),
  })
  .openapi("InsightRow");

export const InsightsQuery = z.object({
  level: z.enum(["adset", "ad"]).openapi({ description: "Aggregation level (campaign level is not offered).", example: "ad" }),
  entity_id: z.uuid().optional().openapi({
    description: "Only this ad set or ad (internal id of the level's kind). Another customer's id answers 404.",
    example: "5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a",
  }),
  adset_id: z.uuid().optional().openapi({ description: "Only with `level=ad`: all ads of this ad set.", example: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d" }),
  date_range: z
    .string()
    .max(200)
    .optional()
    .openapi({
      description: `A preset (${DATE_PRESETS.join(", ")}), computed in the ad account's time zone; or a custom range as JSON \`{"since":"YYYY-MM-DD","until":"YYYY-MM-DD"}\`. Default \`last_30d\`. The \`last_Nd\` presets end yesterday; \`maximum\` reaches back 37 months.`,
      example: "last_7d",
    }),
  "date_range[since]": z
    .string()
    .max(10)
    .optional()
    .openapi({ description: "Custom range, first day (YYYY-MM-DD), the bracket form of `date_range`; needs `date_range[until]`.", example: "2026-01-01" }),
  "date_range[until]": z.string().max(10).optional().openapi({ description: "Custom range, last day (YYYY-MM-DD), inclusive.", example: "2026-01-14" }),
  fields: z
    .string()
    .max(200)
    .optional()
    .openapi({
      description: `Comma-separated metrics from ${INSIGHT_FIELDS.join(", ")}; default all. An unknown name answers 422 naming it.`,
      example: "spend,impressions,clicks,ctr",
    }),
  breakdowns: z
    .string()
    .max(100)
    .optional()
    .openapi({
      description: `Exactly one of ${BREAKDOWNS.slice(0, -1).join(", ")}, or the pair \`age,gender\` (either order; the \`breakdown\` object keeps it). Anything else answers 422 naming it.`,
      example: "age,gender",
    }),
});
