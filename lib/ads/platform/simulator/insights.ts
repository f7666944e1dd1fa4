import { createHash } from "node:crypto";
import { addDays, dayIn, daysBetween, isCalendarDay } from "../../insights/calendar";
import { parameterCheck } from "./graph-faults";
import type { SimAd, SimAdAccount, SimulatorState } from "./state";
import type { Params } from "./validation";
import { DACH_COUNTRIES } from "../../targeting/schema";

/**
 * `GET /act_{id}/insights`: deterministic, plausible daily numbers for every ad from the day it was
 * created, in Graph's shapes (G5): numbers as strings, `date_start`/`date_stop`, `actions`/`action_values`
 * lists, cursor paging. Each (ad, day) is seeded by a hash, so the same question gets the same answer,
 * except conversions of the last 7 days: they grow with the (simulated) time passed since the day began,
 * the way late-attributed conversions do, so a later query reports more and a snapshot job must re-pull
 * that window. All breakdowns asked at one moment agree with each other.
 *
 * Spend follows the ad set's budget shared among its ads; per breakdown value the day's totals are split
 * by fixed per-ad weights with whole-number rounding that keeps every sum equal to the total.
 */

/** The conversion Graph reports for a pixel purchase; `link_click` is reported beside it. */
const SIM_CONVERSION_ACTION = "offsite_conversion.fb_pixel_purchase";

const VALUES: Record<string, readonly string[]> = {
  age: ["18-24", "25-34", "35-44", "45-54", "55-64", "65+"],
  gender: ["female", "male", "unknown"],
  country: DACH_COUNTRIES,
  publisher_platform: ["facebook", "instagram"],
  platform_position: ["feed", "facebook_stories", "facebook_reels", "instagram_stories", "instagram_reels"],
  impression_device: ["iphone", "android_smartphone", "ipad", "android_tablet", "desktop"],
  device_platform: ["mobile_app", "mobile_web", "desktop"],
};

/** Which positions belong to which platform: Graph reports `platform_position` only with `publisher_platform`. */
const POSITION_PLATFORM: Record<string, string> = {
  feed: "*",
  facebook_stories: "facebook",
  facebook_reels: "facebook",
  instagram_stories: "instagram",
  instagram_reels: "instagram",
};

/** The breakdown sets Graph accepts here (one dimension, or one of these pairs). */
const SUPPORTED = new Set([
  "age",
  "gender",
  "age,gender",
  "country",
  "publisher_platform",
  "publisher_platform,platform_position",
  "impression_device",
  "device_platform",
]);

const METRICS = ["impressions", "reach", "clicks", "spend", "conversions", "conversionValue"] as const;
type Metric = (typeof METRICS)[number];
type Numbers = Record<Metric, number>;

const MAX_PAGE = 500;
/** Answers kept for their later pages. */
const KEPT_ANSWERS = 4;
const FULL_ATTRIBUTION_DAYS = 7;

function seeded(...parts: string[]): number[] {
  const digest = createHash("sha256").update(parts.join("|")).digest();
  return Array.from({ length: 8 }, (_, i) => digest.readUInt32BE(i * 4) / 2 ** 32);
}

/** Whole numbers proportional to `weights` that add up to `total` exactly (largest remainder). */
function apportion(total: number, weights: number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  const exact = weights.map((w) => (total * w) / sum);
  const parts = exact.map(Math.floor);
  let left = total - parts.reduce((a, b) => a + b, 0);
  const order = exact.map((value, index) => ({ index, rest: value - Math.floor(value) })).sort((a, b) => b.rest - a.rest || a.index - b.index);
  for (const { index } of order) {
    if (left <= 0) break;
    parts[index] = (parts[index] ?? 0) + 1;
    left--;
  }
  return parts;
}

export function createInsightsEndpoint(state: SimulatorState) {
  function dailyTotals(ad: SimAd, siblings: number, day: string, nowMs: number): Numbers {
    const adset = state.adsets.get(ad.adsetId);
    const budget = adset?.dailyBudget ?? (adset?.lifetimeBudget ? adset.lifetimeBudget / 30 : 2_000);
    const [r1 = 0, r2 = 0, r3 = 0, r4 = 0, r5 = 0, r6 = 0] = seeded(ad.id, day);
    const spend = Math.round((budget / siblings) * (0.75 + 0.25 * r1));
    const cpmCents = 500 + 700 * r2;
    const impressions = Math.round((spend * 1000) / cpmCents);
    const reach = Math.round(impressions * (0.55 + 0.35 * r3));
    const clicks = Math.round(impressions * (0.006 + 0.018 * r4));
    const settled = Math.round(clicks * (0.02 + 0.06 * r5));
    // Recent days report part of their conversions, more as time passes, all of them after 7 days.
    const hours = (nowMs - Date.parse(`${day}T00:00:00Z`)) / 3_600_000;
    const attributed = Math.min(1, 0.4 + (0.6 * Math.max(0, hours)) / (24 * FULL_ATTRIBUTION_DAYS));
    const conversions = Math.floor(settled * attributed);
    const conversionValue = conversions * Math.round(2_000 + 6_000 * r6);
    return { impressions, reach, clicks, spend, conversions, conversionValue };
  }

  /** Per-ad weights of each breakdown value, fixed for the ad. */
  function weights(ad: SimAd, dimension: string): number[] {
    const values = VALUES[dimension] ?? [];
    const random = seeded(ad.id, dimension);
    return values.map((_, index) => 0.2 + (random[index % random.length] ?? 0));
  }

  /** Combined values of a breakdown set with their rows' numbers, each sum equal to the day's totals. */
  function split(ad: SimAd, totals: Numbers, dimensions: string[]): { values: Record<string, string>; numbers: Numbers }[] {
    if (dimensions.length === 0) return [{ values: {}, numbers: totals }];
    let combos: { values: Record<string, string>; weight: number }[] = [{ values: {}, weight: 1 }];
    for (const dimension of dimensions) {
      const values = VALUES[dimension] ?? [];
      const w = weights(ad, dimension);
      combos = combos.flatMap((combo) =>
        values
          .map((value, index) => ({ values: { ...combo.values, [dimension]: value }, weight: combo.weight * (w[index] ?? 1) }))
          .filter((next) => {
            const platform = next.values.platform_position ? POSITION_PLATFORM[next.values.platform_position] : undefined;
            return !platform || platform === "*" || platform === next.values.publisher_platform;
          }),
      );
    }
    const shares = Object.fromEntries(
      METRICS.map((metric) => [
        metric,
        apportion(
          totals[metric],
          combos.map((c) => c.weight),
        ),
      ]),
    ) as Record<Metric, number[]>;
    return combos.map((combo, index) => ({
      values: combo.values,
      numbers: Object.fromEntries(METRICS.map((metric) => [metric, shares[metric][index] ?? 0])) as Numbers,
    }));
  }

  const money = (minor: number) => (minor / 100).toFixed(2);

  function row(ad: SimAd, day: string, values: Record<string, string>, n: Numbers, level: string) {
    const actions = [
      { action_type: "link_click", value: String(n.clicks) },
      ...(n.conversions > 0 ? [{ action_type: SIM_CONVERSION_ACTION, value: String(n.conversions) }] : []),
    ];
    return {
      account_id: ad.accountId,
      campaign_id: state.adsets.get(ad.adsetId)?.campaignId,
      adset_id: ad.adsetId,
      ...(level === "ad" ? { ad_id: ad.id, ad_name: ad.name } : {}),
      impressions: String(n.impressions),
      reach: String(n.reach),
      clicks: String(n.clicks),
      spend: money(n.spend),
      ctr: n.impressions > 0 ? ((n.clicks / n.impressions) * 100).toFixed(6) : "0",
      cpm: n.impressions > 0 ? ((n.spend / 100 / n.impressions) * 1000).toFixed(6) : "0",
      actions,
      ...(n.conversions > 0 ? { action_values: [{ action_type: SIM_CONVERSION_ACTION, value: money(n.conversionValue) }] } : {}),
      date_start: day,
      date_stop: day,
      ...values,
    };
  }

  function timeRange(params: Params, today: string): { since: string; until: string } {
    if (!params.time_range) return { since: addDays(today, -30), until: addDays(today, -1) };
    let parsed: unknown;
    try {
      parsed = JSON.parse(params.time_range);
    } catch {
      throw parameterCheck("Param time_range must be a JSON object with since and until", "time_range");
    }
    const since = (parsed as { since?: unknown }).since;
    const until = (parsed as { until?: unknown }).until;
    if (typeof since !== "string" || typeof until !== "string" || !isCalendarDay(since) || !isCalendarDay(until) || since > until) {
      throw parameterCheck("Param time_range must be a JSON object with since and until (YYYY-MM-DD, since <= until)", "time_range");
    }
    if (daysBetween(since, until) > 37 * 31) throw parameterCheck("The time range is longer than 37 months", "time_range");
    return { since, until };
  }

  /** Every row of one query, in a stable order (day, ad, breakdown values). */
  function generate(act: SimAdAccount, level: string, breakdowns: string[], since: string, last: string, nowMs: number): Record<string, unknown>[] {
    const ads = [...state.ads.values()].filter((ad) => ad.accountId === act.id).sort((a, b) => (a.id < b.id ? -1 : 1));
    const siblings = new Map<string, number>();
    for (const ad of ads) siblings.set(ad.adsetId, (siblings.get(ad.adsetId) ?? 0) + 1);
    const rows: Record<string, unknown>[] = [];
    for (let day = since; day <= last; day = addDays(day, 1)) {
      const byAdSet = new Map<string, { ad: SimAd; parts: { values: Record<string, string>; numbers: Numbers }[] }>();
      for (const ad of ads) {
        if (dayIn(act.timezoneName, new Date(ad.createdMs)) > day) continue;
        const parts = split(ad, dailyTotals(ad, siblings.get(ad.adsetId) ?? 1, day, nowMs), breakdowns);
        if (level === "ad") {
          for (const part of parts) rows.push(row(ad, day, part.values, part.numbers, level));
          continue;
        }
        const summed = byAdSet.get(ad.adsetId);
        if (!summed) byAdSet.set(ad.adsetId, { ad, parts });
        else
          summed.parts.forEach((part, index) => {
            for (const metric of METRICS) part.numbers[metric] += parts[index]?.numbers[metric] ?? 0;
          });
      }
      for (const { ad, parts } of byAdSet.values()) for (const part of parts) rows.push(row(ad, day, part.values, part.numbers, level));
    }
    return rows;
  }

  const generated = new Map<string, Record<string, unknown>[]>();

  return function accountInsights(act: SimAdAccount, params: Params, requestUrl: URL) {
    if (params.time_increment !== undefined && params.time_increment !== "1" && params.time_increment !== "all_days") {
      throw parameterCheck("Param time_increment must be 1 or all_days here", "time_increment");
    }
    const level = params.level ?? "ad";
    if (level !== "ad" && level !== "adset") throw parameterCheck("Param level must be one of {ad, adset} here", "level");
    const breakdowns = params.breakdowns ? params.breakdowns.split(",").map((b) => b.trim()) : [];
    if (breakdowns.length > 0 && !SUPPORTED.has(breakdowns.join(","))) {
      throw parameterCheck(`breakdowns[0] must be one of the following values or combinations: ${[...SUPPORTED].join("; ")}`, "breakdowns");
    }
    // The cursor carries the moment of the first page, so every page of one query shows the same numbers.
    const [afterIndex, atMs] = params.after ? Buffer.from(params.after, "base64url").toString().split(".").map(Number) : [];
    const nowMs = atMs !== undefined && Number.isFinite(atMs) ? atMs : state.now();
    const today = dayIn(act.timezoneName, new Date(nowMs));
    const { since, until } = timeRange(params, today);
    const key = JSON.stringify([act.id, level, breakdowns, since, until, nowMs]);
    let rows = generated.get(key);
    if (!rows) {
      rows = generate(act, level, breakdowns, since, until < today ? until : today, nowMs);
      generated.set(key, rows);
      // A few recent answers are kept for their next pages; the oldest goes first.
      for (const old of generated.keys()) {
        if (generated.size <= KEPT_ANSWERS) break;
        generated.delete(old);
      }
    }

    // Graph answers the fields asked for, with the row's dates and breakdown values; without `fields`
    // every computed field. Rows a test added (another level's, as Graph's docs show them) come last, on
    // every answer, as given.
    const asked = params.fields ? new Set([...params.fields.split(",").map((field) => field.trim()), "date_start", "date_stop", ...breakdowns]) : undefined;
    const computed = rows.length;
    const extra = state.extraInsightRows.get(act.id);
    if (extra) rows = [...rows, ...extra];
    const limit = Math.min(MAX_PAGE, Math.max(1, Number(params.limit) || 25));
    const start = afterIndex !== undefined && Number.isFinite(afterIndex) ? afterIndex + 1 : 0;
    const slice = rows
      .slice(start, start + limit)
      .map((row, index) => (asked && start + index < computed ? Object.fromEntries(Object.entries(row).filter(([name]) => asked.has(name))) : row));
    if (slice.length === 0) return { data: [] };
    const end = start + slice.length - 1;
    const cursor = (index: number) => Buffer.from(`${index}.${nowMs}`).toString("base64url");
    const paging: Record<string, unknown> = { cursors: { before: cursor(start), after: cursor(end) } };
    if (end + 1 < rows.length) {
      const next = new URL(requestUrl);
      next.searchParams.set("after", cursor(end));
      paging.next = next.toString();
    }
    return { data: slice, paging };
  };
}
