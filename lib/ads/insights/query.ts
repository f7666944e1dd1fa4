import { and, eq, sql, type SQL } from "drizzle-orm";
import type { Database } from "../../db/client";
import { adsAdSets, adsAds, adsInsightSyncs } from "../../db/schema";
import { queryRows } from "../../mail/send-jobs/sql";
import { BREAKDOWN_SOURCES, blockRanges } from "./blocks";
import { NotFoundError, ValidationError } from "../../core/errors";
import { addDays, dayIn, daysBetween, isCalendarDay, monthStart, weekdayIndex } from "./calendar";

/**
 * `GET /v1/insights` from the daily snapshots. Additive metrics are summed; `reach` over more than one
 * day is the highest single-day reach (a lower bound); ratios are derived from the sums, never averaged,
 * and null where their denominator is 0. Money is in major units of the account currency.
 */

export const INSIGHT_FIELDS = ["spend", "impressions", "reach", "clicks", "ctr", "cpc", "cpm", "conversions", "conversion_value", "roas", "cpa"] as const;
export type InsightField = (typeof INSIGHT_FIELDS)[number];

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
export type DatePreset = (typeof DATE_PRESETS)[number];

export const BREAKDOWNS = [
  "age",
  "gender",
  "country",
  "publisher_platform",
  "platform_position",
  "impression_device",
  "device_platform",
  "age,gender",
] as const;
export type Breakdown = (typeof BREAKDOWNS)[number];

/** How far back `maximum` reaches: Graph keeps insights for 37 months. */
const MAXIMUM_DAYS = 37 * 31;

export type DateRangeInput = { preset?: string; json?: string; since?: string; until?: string };

export type InsightsQuery = {
  level: "adset" | "ad";
  entity_id?: string;
  adset_id?: string;
  date_range: DateRangeInput;
  fields?: string;
  breakdowns?: string;
};

export type InsightRow = {
  id: string;
  adset_id: string;
  platform_id: string;
  date_start: string;
  date_stop: string;
  breakdown?: Record<string, string>;
} & InsightMetrics;

type Ratio = "ctr" | "cpc" | "cpm" | "roas" | "cpa";
export type InsightMetrics = Partial<Record<Exclude<InsightField, Ratio>, number>> & Partial<Record<Ratio, number | null>>;

function invalid(field: string, issue: string): ValidationError {
  return new ValidationError(`Invalid ${field}: ${issue}`, [{ path: field, message: issue }]);
}

export function parseFields(raw: string | undefined): InsightField[] {
  if (raw === undefined || raw.trim() === "") return [...INSIGHT_FIELDS];
  const names = raw.split(",").map((name) => name.trim());
  const unknown = names.filter((name) => !(INSIGHT_FIELDS as readonly string[]).includes(name));
  if (unknown.length > 0) throw invalid("fields", `unknown field(s) ${unknown.join(", ")}; allowed: ${INSIGHT_FIELDS.join(", ")}.`);
  return [...new Set(names)] as InsightField[];
}

/** The breakdown and the order its names were given in (the pair may come as `gender,age`). */
export function parseBreakdowns(raw: string | undefined): { breakdown: Breakdown | ""; order: string[] } {
  if (raw === undefined || raw.trim() === "") return { breakdown: "", order: [] };
  const names = raw.split(",").map((name) => name.trim());
  const joined = names.join(",");
  if ((BREAKDOWNS as readonly string[]).includes(joined)) return { breakdown: joined as Breakdown, order: names };
  if (names.length === 2 && joined === "gender,age") return { breakdown: "age,gender", order: names };
  const unknown = names.filter((name) => !(BREAKDOWNS as readonly string[]).includes(name));
  const issue =
    unknown.length > 0
      ? `unknown breakdown(s) ${unknown.join(", ")}; allowed: ${BREAKDOWNS.slice(0, -1).join(", ")}, or the pair age,gender.`
      : `${joined} is not a combination offered; use one breakdown, or the pair age,gender.`;
  throw invalid("breakdowns", issue);
}

/** A preset in the account's time zone, or `{ since, until }` (JSON in `date_range`, or `date_range[since]`/`[until]`). */
export function resolveDateRange(input: DateRangeInput, timeZone: string, now: Date): { since: string; until: string } {
  const today = dayIn(timeZone, now);
  let custom: { since?: unknown; until?: unknown } | undefined;
  if (input.since !== undefined || input.until !== undefined) {
    if (input.preset !== undefined) throw invalid("date_range", "give a preset or since/until, not both.");
    custom = { since: input.since, until: input.until };
  } else if (input.preset?.trim().startsWith("{")) {
    try {
      const parsed: unknown = JSON.parse(input.preset);
      custom = parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as { since?: unknown; until?: unknown }) : {};
    } catch {
      throw invalid("date_range", 'not valid JSON; send {"since":"YYYY-MM-DD","until":"YYYY-MM-DD"} or a preset.');
    }
  }
  if (custom) {
    const { since, until } = custom;
    if (typeof since !== "string" || !isCalendarDay(since)) throw invalid("date_range.since", "must be a date YYYY-MM-DD.");
    if (typeof until !== "string" || !isCalendarDay(until)) throw invalid("date_range.until", "must be a date YYYY-MM-DD.");
    if (since > until) throw invalid("date_range", "since must not be after until.");
    if (daysBetween(since, until) > MAXIMUM_DAYS) throw invalid("date_range", "at most 37 months.");
    return { since, until };
  }
  const preset = input.preset ?? "last_30d";
  const lastDays = /^last_(\d+)d$/.exec(preset);
  if (lastDays && (DATE_PRESETS as readonly string[]).includes(preset)) {
    return { since: addDays(today, -Number(lastDays[1])), until: addDays(today, -1) };
  }
  const weekStart = addDays(today, -weekdayIndex(today));
  switch (preset as DatePreset) {
    case "today":
      return { since: today, until: today };
    case "yesterday":
      return { since: addDays(today, -1), until: addDays(today, -1) };
    case "this_month":
      return { since: monthStart(today), until: today };
    case "last_month": {
      const lastDay = addDays(monthStart(today), -1);
      return { since: monthStart(lastDay), until: lastDay };
    }
    case "this_week_mon_today":
      return { since: weekStart, until: today };
    case "last_week_mon_sun":
      return { since: addDays(weekStart, -7), until: addDays(weekStart, -1) };
    case "maximum":
      return { since: addDays(today, -MAXIMUM_DAYS), until: today };
    default:
      throw invalid("date_range", `unknown preset ${preset}; allowed: ${DATE_PRESETS.join(", ")}, or {since, until}.`);
  }
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;
const ratio = (numerator: number, denominator: number, scale: number, digits: number) =>
  denominator === 0 ? null : round((numerator * scale) / denominator, digits);

type Aggregate = {
  id: string;
  adset_id: string;
  platform_id: string;
  k1: string;
  k2: string;
  impressions: number;
  reach: number;
  clicks: number;
  spend: number;
  conversions: number;
  value: number;
};

function metricsOf(row: Aggregate, fields: InsightField[]): InsightMetrics {
  const spend = row.spend / 100;
  const conversionValue = row.value / 100;
  const all: Record<InsightField, number | null> = {
    spend,
    impressions: row.impressions,
    reach: row.reach,
    clicks: row.clicks,
    ctr: ratio(row.clicks, row.impressions, 100, 4),
    cpc: ratio(row.spend, row.clicks, 1 / 100, 4),
    cpm: ratio(row.spend, row.impressions, 1000 / 100, 4),
    conversions: row.conversions,
    conversion_value: conversionValue,
    roas: ratio(row.value, row.spend, 1, 4),
    cpa: ratio(row.spend, row.conversions, 1 / 100, 4),
  };
  return Object.fromEntries(fields.map((field) => [field, all[field]])) as InsightMetrics;
}

/** The ad account's time zone as recorded by the first snapshot; UTC until there is one (and no data either). */
async function timeZoneOf(db: Database, customerId: string): Promise<string> {
  const [sync] = await db.select({ timezoneName: adsInsightSyncs.timezoneName }).from(adsInsightSyncs).where(eq(adsInsightSyncs.customerId, customerId));
  return sync?.timezoneName ?? "UTC";
}

function breakdownOf(keys: readonly { name: string }[], order: string[], row: Aggregate): Record<string, string> {
  const values = new Map(keys.map((key, index) => [key.name, index === 0 ? row.k1 : row.k2]));
  return Object.fromEntries(order.map((name) => [name, values.get(name) ?? ""]));
}

export async function queryInsights(deps: { db: Database; clock: { now(): Date } }, customerId: string, query: InsightsQuery): Promise<InsightRow[]> {
  const fields = parseFields(query.fields);
  const { breakdown, order } = parseBreakdowns(query.breakdowns);
  if (query.adset_id !== undefined && query.level !== "ad") throw invalid("adset_id", "only with level=ad.");
  const { db } = deps;
  const range = resolveDateRange(query.date_range, await timeZoneOf(db, customerId), deps.clock.now());

  if (query.entity_id !== undefined) {
    const table = query.level === "ad" ? adsAds : adsAdSets;
    const [found] = await db
      .select({ id: table.id })
      .from(table)
      .where(and(eq(table.customerId, customerId), eq(table.id, query.entity_id)));
    if (!found) throw new NotFoundError(query.level === "ad" ? "Ad" : "Ad set");
  }
  if (query.adset_id !== undefined) {
    const [found] = await db
      .select({ id: adsAdSets.id })
      .from(adsAdSets)
      .where(and(eq(adsAdSets.customerId, customerId), eq(adsAdSets.id, query.adset_id)));
    if (!found) throw new NotFoundError("Ad set");
  }

  const source = BREAKDOWN_SOURCES[breakdown];
  if (!source) throw new Error(`no source for breakdown ${breakdown}`);
  const filters: SQL[] = [sql`b.customer_id = ${customerId}`, sql`b.breakdown = ${breakdown}`, sql`b.entity_kind = ${query.level}`];
  if (query.entity_id !== undefined) filters.push(sql`b.entity_id = ${query.entity_id}`);
  if (query.adset_id !== undefined) filters.push(sql`b.ad_set_id = ${query.adset_id}`);
  // The range is the union of a few aligned day blocks (blocks.ts): about ten rows per entity and value.
  const platformIds =
    query.level === "ad"
      ? sql`select id, platform_ad_id as platform_id from ads_ads where customer_id = ${customerId}`
      : sql`select id, platform_ad_set_id as platform_id from ads_ad_sets where customer_id = ${customerId}`;
  const rows = await queryRows<Aggregate>(
    db,
    sql`
    select agg.entity_id as id, agg.ad_set_id as adset_id, p.platform_id, agg.key1 as k1, agg.key2 as k2,
           agg.impressions::float8 as impressions, agg.reach::float8 as reach, agg.clicks::float8 as clicks,
           agg.spend::float8 as spend, agg.conversions::float8 as conversions, agg.value::float8 as value
    from (
      -- float8 sums: exact below 2^53 and far cheaper than the numeric a sum of int8 gives.
      select entity_id, ad_set_id, key1, key2, sum(impressions::float8) as impressions, max(reach) as reach, sum(clicks::float8) as clicks,
             sum(spend_minor::float8) as spend, sum(conversions::float8) as conversions, sum(conversion_value_minor::float8) as value
      from ${blockRanges(range.since, range.until)}
      join ads_insight_blocks b on b.level = r.level and b.block_start = r.block_start
      where ${sql.join(filters, sql` and `)}
      group by entity_id, ad_set_id, key1, key2
    ) agg
    join (${platformIds}) p on p.id = agg.entity_id
    order by agg.entity_id, agg.key1, agg.key2`,
  );
  return rows.map((row) => ({
    id: row.id,
    adset_id: row.adset_id,
    platform_id: row.platform_id,
    date_start: range.since,
    date_stop: range.until,
    ...metricsOf(row, fields),
    ...(source.keys.length > 0 ? { breakdown: breakdownOf(source.keys, order, row) } : {}),
  }));
}
