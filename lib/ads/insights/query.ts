import { and, eq, sql, type SQL } from "drizzle-orm";
import type { Database } from "../../db/client";
import { adsAdSets, adsAds, adsInsightBlocks, adsInsightSyncs, type InsightBreakdown } from "../../db/schema";
import { alias } from "drizzle-orm/pg-core";
import { queryRows } from "../../db/sql";
import { BREAKDOWN_SOURCES, blockRanges } from "./blocks";
import { isPreset, readWindow, storeWindow, type DateRangeInput } from "./windows";
import { NotFoundError, ValidationError } from "../../core/errors";
import { addDays, dayIn, daysBetween, isCalendarDay, monthStart, weekdayIndex } from "./calendar";
import {
  BREAKDOWNS,
  DATE_PRESETS,
  INSIGHT_FIELDS,
  type Breakdown,
  type InsightRow as InsightRowSchema,
  type InsightsQuery as InsightsQuerySchema,
} from "./schema";
import type { z } from "zod";

/**
 * `GET /v1/insights` from the daily snapshots. Additive metrics are summed; `reach` over more than one
 * day is the highest single-day reach (a lower bound); ratios are derived from the sums, never averaged,
 * and null where their denominator is 0. Money is in major units of the account currency.
 */

export type InsightField = (typeof INSIGHT_FIELDS)[number];
export type DatePreset = (typeof DATE_PRESETS)[number];

/** How far back `maximum` reaches: Graph keeps insights for 37 months. */
const MAXIMUM_DAYS = 37 * 31;

/** The API's query parameters and `InsightRow` schema (the customer's route and the operator's read the same). */
type InsightsQuery = z.infer<typeof InsightsQuerySchema>;
type InsightRow = z.infer<typeof InsightRowSchema>;
export type InsightMetrics = Omit<InsightRow, "id" | "adset_id" | "platform_id" | "date_start" | "date_stop" | "breakdown">;

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
function parseBreakdowns(raw: string | undefined): { breakdown: Breakdown | ""; order: string[] } {
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

/** One aggregated row as the query hands it over: entity id, the two breakdown keys, then the six sums. */
export type Aggregate = [
  entityId: string,
  key1: string,
  key2: string,
  impressions: number,
  reach: number,
  clicks: number,
  spend: number,
  conversions: number,
  value: number,
];

export function metricsOf(row: Aggregate, fields: InsightField[]): InsightMetrics {
  const [, , , impressions, reach, clicks, spend, conversions, value] = row;
  const out: InsightMetrics = {};
  for (const field of fields) {
    switch (field) {
      case "spend":
        out.spend = spend / 100;
        break;
      case "impressions":
        out.impressions = impressions;
        break;
      case "reach":
        out.reach = reach;
        break;
      case "clicks":
        out.clicks = clicks;
        break;
      case "ctr":
        out.ctr = ratio(clicks, impressions, 100, 4);
        break;
      case "cpc":
        out.cpc = ratio(spend, clicks, 1 / 100, 4);
        break;
      case "cpm":
        out.cpm = ratio(spend, impressions, 1000 / 100, 4);
        break;
      case "conversions":
        out.conversions = conversions;
        break;
      case "conversion_value":
        out.conversion_value = value / 100;
        break;
      case "roas":
        out.roas = ratio(value, spend, 1, 4);
        break;
      case "cpa":
        out.cpa = ratio(spend, conversions, 1 / 100, 4);
        break;
    }
  }
  return out;
}

/** The ad account's time zone as recorded by the first snapshot; UTC until there is one (and no data either). */
export async function timeZoneOf(db: Database, customerId: string): Promise<string> {
  const [sync] = await db.select({ timezoneName: adsInsightSyncs.timezoneName }).from(adsInsightSyncs).where(eq(adsInsightSyncs.customerId, customerId));
  return sync?.timezoneName ?? "UTC";
}

/** The breakdown object in the order the names were asked for (`gender,age` answers `{gender, age}`). */
function breakdownOf(keys: readonly { name: string }[], order: string[], row: Aggregate): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of order) {
    const index = keys.findIndex((key) => key.name === name);
    out[name] = index === 0 ? row[1] : index === 1 ? row[2] : "";
  }
  return out;
}

export async function queryInsights(deps: { db: Database; clock: { now(): Date } }, customerId: string, query: InsightsQuery): Promise<InsightRow[]> {
  const fields = parseFields(query.fields);
  const { breakdown, order } = parseBreakdowns(query.breakdowns);
  if (query.adset_id !== undefined && query.level !== "ad") throw invalid("adset_id", "only with level=ad.");
  const { db } = deps;
  const dateRange: DateRangeInput = { preset: query.date_range, since: query["date_range[since]"], until: query["date_range[until]"] };
  const range = resolveDateRange(dateRange, await timeZoneOf(db, customerId), deps.clock.now());

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
  // A preset over all entities is what dashboards ask again and again: read through the window cache.
  const window =
    query.entity_id === undefined && query.adset_id === undefined && isPreset(dateRange)
      ? { customerId, breakdown, entityKind: query.level, since: range.since, until: range.until }
      : undefined;
  const cached = window ? await readWindow(db, window) : undefined;
  let rows: Aggregate[];
  if (cached !== undefined) rows = JSON.parse(cached);
  else {
    const aggregate = await aggregateBlocks(db, customerId, breakdown, range, query);
    if (window && aggregate.version !== null) await storeWindow(db, window, aggregate.version, aggregate.rows);
    rows = JSON.parse(aggregate.rows);
  }
  // Our records name the platform id and the ad set; an entity no longer in them (deleted) is left out.
  const entities = await entitiesOf(db, customerId, query);
  const out: InsightRow[] = [];
  for (const row of rows) {
    const entity = entities.get(row[0]);
    if (!entity) continue;
    out.push({
      id: row[0],
      adset_id: entity.adSetId,
      platform_id: entity.platformId,
      date_start: range.since,
      date_stop: range.until,
      ...metricsOf(row, fields),
      ...(source.keys.length > 0 ? { breakdown: breakdownOf(source.keys, order, row) } : {}),
    });
  }
  return out;
}

/**
 * The range is the union of a few aligned day blocks (blocks.ts): about ten rows per entity and value,
 * summed in float8 (exact below 2^53, far cheaper than the numeric a sum of int8 gives). The rows come
 * back as one JSON array of arrays: with the embedded engine, handing over thousands of rows one field at
 * a time costs several times what the aggregation does. The blocks' version is read by the same statement,
 * so it is the version of exactly the blocks summed.
 */
export async function aggregateBlocks(
  db: Database,
  customerId: string,
  breakdown: InsightBreakdown,
  range: { since: string; until: string },
  query: Pick<InsightsQuery, "level" | "entity_id" | "adset_id">,
): Promise<{ version: number | null; rows: string }> {
  const [aggregate] = await queryRows<{ version: number | null; rows: string | null }>(db, aggregateStatement(customerId, breakdown, range, query));
  return { version: aggregate?.version ?? null, rows: aggregate?.rows ?? "[]" };
}

/** The statement `aggregateBlocks` runs (the insights bench prints its plan). */
export function aggregateStatement(
  customerId: string,
  breakdown: InsightBreakdown,
  range: { since: string; until: string },
  query: Pick<InsightsQuery, "level" | "entity_id" | "adset_id">,
): SQL {
  const b = alias(adsInsightBlocks, "b");
  const filters: SQL[] = [sql`${b.customerId} = ${customerId}`, sql`${b.breakdown} = ${breakdown}`, sql`${b.entityKind} = ${query.level}`];
  if (query.entity_id !== undefined) filters.push(sql`${b.entityId} = ${query.entity_id}`);
  if (query.adset_id !== undefined) filters.push(sql`${b.adSetId} = ${query.adset_id}`);
  return sql`
    select (select ${adsInsightSyncs.blocksVersion} from ${adsInsightSyncs} where ${adsInsightSyncs.customerId} = ${customerId}) as version,
           json_agg(json_build_array(entity_id, key1, key2, impressions, reach, clicks, spend, conversions, value) order by entity_id, key1, key2)::text as rows
    from (
      select ${b.entityId} as entity_id, ${b.key1} as key1, ${b.key2} as key2, sum(${b.impressions}::float8)::int8 as impressions, max(${b.reach}) as reach,
             sum(${b.clicks}::float8)::int8 as clicks, sum(${b.spendMinor}::float8)::int8 as spend, sum(${b.conversions}::float8)::int8 as conversions,
             sum(${b.conversionValueMinor}::float8)::int8 as value
      from ${blockRanges(range.since, range.until)}
      join ${adsInsightBlocks} ${b} on ${b.level} = r.level and ${b.blockStart} = r.block_start
      where ${sql.join(filters, sql` and `)}
      group by ${b.entityId}, ${b.key1}, ${b.key2}
    ) agg`;
}

/** The entities a query may answer for, by id: their platform id and ad set (an ad set's own for `level=adset`). */
async function entitiesOf(db: Database, customerId: string, query: InsightsQuery): Promise<Map<string, { platformId: string; adSetId: string }>> {
  const rows =
    query.level === "ad"
      ? await db
          .select({ id: adsAds.id, platformId: adsAds.platformAdId, adSetId: adsAds.adSetId })
          .from(adsAds)
          .where(
            and(
              eq(adsAds.customerId, customerId),
              query.entity_id !== undefined ? eq(adsAds.id, query.entity_id) : undefined,
              query.adset_id !== undefined ? eq(adsAds.adSetId, query.adset_id) : undefined,
            ),
          )
      : await db
          .select({ id: adsAdSets.id, platformId: adsAdSets.platformAdSetId, adSetId: adsAdSets.id })
          .from(adsAdSets)
          .where(and(eq(adsAdSets.customerId, customerId), query.entity_id !== undefined ? eq(adsAdSets.id, query.entity_id) : undefined));
  const out = new Map<string, { platformId: string; adSetId: string }>();
  for (const row of rows) if (row.platformId !== null) out.set(row.id, { platformId: row.platformId, adSetId: row.adSetId });
  return out;
}
