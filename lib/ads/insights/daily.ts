import { and, asc, between, eq } from "drizzle-orm";
import { ValidationError, NotFoundError } from "../../core/errors";
import type { Database } from "../../db/client";
import { adsAdSets, adsInsightBlocks, adsInsightSyncs } from "../../db/schema";
import { addDays, daysBetween } from "./calendar";
import { metricsOf, parseFields, resolveDateRange, type Aggregate, type InsightMetrics } from "./query";
import type { DateRangeInput } from "./windows";

/*
 * Insights per day and ad set, by the ad set's name, for the operator's charts. Read from the level-0
 * ad-set blocks (one row per ad set and day of the account's time zone, the day's snapshots of its ads
 * added up: `lib/ads/insights/blocks.ts`), so a day here equals `GET /v1/insights?level=adset` for that
 * one day. Invariants:
 * - every ad set with a snapshot in the range has a row for every day of it, days without one as zeros;
 * - rows are ordered by ad set name (then id), then day; an ad set no longer in our records is left out;
 * - a range holds at most `MAX_DAYS` days, so one read is at most ad sets × 92 rows.
 */

export const MAX_DAYS = 92;

type AdSetDay = { date: string; adset_id: string; adset_name: string; platform_id: string } & InsightMetrics;

export type AdSetDailyInsights = { since: string; until: string; time_zone: string; currency: string | null; rows: AdSetDay[] };

export async function adSetDailyInsights(
  deps: { db: Database; clock: { now(): Date } },
  customerId: string,
  input: { date_range: DateRangeInput; adset_id?: string; fields?: string },
): Promise<AdSetDailyInsights> {
  const { db } = deps;
  const fields = parseFields(input.fields);
  const [sync] = await db
    .select({ timeZone: adsInsightSyncs.timezoneName, currency: adsInsightSyncs.currency })
    .from(adsInsightSyncs)
    .where(eq(adsInsightSyncs.customerId, customerId));
  const timeZone = sync?.timeZone ?? "UTC";
  const range = resolveDateRange(input.date_range, timeZone, deps.clock.now());
  const days = daysBetween(range.since, range.until) + 1;
  if (days > MAX_DAYS) {
    throw new ValidationError(`Invalid date_range: at most ${MAX_DAYS} days per request; this one has ${days}.`, [
      { path: "date_range", message: `At most ${MAX_DAYS} days per request (this one has ${days}); ask for a shorter range.` },
    ]);
  }
  if (input.adset_id !== undefined) {
    const [found] = await db
      .select({ id: adsAdSets.id })
      .from(adsAdSets)
      .where(and(eq(adsAdSets.customerId, customerId), eq(adsAdSets.id, input.adset_id)));
    if (!found) throw new NotFoundError("Ad set");
  }
  const b = adsInsightBlocks;
  const stored = await db
    .select({
      day: b.blockStart,
      id: b.entityId,
      name: adsAdSets.name,
      platformId: adsAdSets.platformAdSetId,
      impressions: b.impressions,
      reach: b.reach,
      clicks: b.clicks,
      spend: b.spendMinor,
      conversions: b.conversions,
      value: b.conversionValueMinor,
    })
    .from(b)
    .innerJoin(adsAdSets, and(eq(adsAdSets.id, b.entityId), eq(adsAdSets.customerId, b.customerId)))
    .where(
      and(
        eq(b.customerId, customerId),
        eq(b.breakdown, ""),
        eq(b.entityKind, "adset"),
        eq(b.level, 0),
        between(b.blockStart, range.since, range.until),
        input.adset_id !== undefined ? eq(b.entityId, input.adset_id) : undefined,
      ),
    )
    .orderBy(asc(adsAdSets.name), asc(b.entityId), asc(b.blockStart));

  const adSets = new Map<string, { name: string; platformId: string; byDay: Map<string, Aggregate> }>();
  for (const row of stored) {
    let adSet = adSets.get(row.id);
    if (!adSet) {
      adSet = { name: row.name, platformId: row.platformId, byDay: new Map() };
      adSets.set(row.id, adSet);
    }
    adSet.byDay.set(row.day, [row.id, "", "", row.impressions, row.reach, row.clicks, row.spend, row.conversions, row.value]);
  }
  const rows: AdSetDay[] = [];
  for (const [id, adSet] of adSets) {
    for (let i = 0; i < days; i++) {
      const date = addDays(range.since, i);
      const aggregate: Aggregate = adSet.byDay.get(date) ?? [id, "", "", 0, 0, 0, 0, 0, 0];
      rows.push({ date, adset_id: id, adset_name: adSet.name, platform_id: adSet.platformId, ...metricsOf(aggregate, fields) });
    }
  }
  return { since: range.since, until: range.until, time_zone: timeZone, currency: sync?.currency ?? null, rows };
}
