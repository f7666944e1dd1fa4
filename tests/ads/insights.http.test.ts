import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { INSIGHTS_SNAPSHOT_TOPIC } from "../../lib/ads/insights/snapshots";
import { describeResponse, type Ads, type ErrorEnvelope } from "../helpers/harness";
import {
  createAd,
  createAdSet,
  createAdsWorld,
  createImageCreative,
  onboardedCustomer,
  runInsightsSnapshots,
  type AdsWorld,
  type OnboardedCustomer,
} from "./support/ads-world";

/**
 * Insights from daily snapshots: the daily cron fans out one queue message per onboarded ad account, each
 * pulls the account's daily ad rows (every breakdown) from the Graph simulator, and GET /v1/insights
 * aggregates them. Time is the harness's ManualClock; the simulator's clock is moved with it.
 */
let world: AdsWorld;
const DAY = 86_400_000;

beforeAll(async () => {
  world = await createAdsWorld();
  // A fixed start in the middle of a month, the simulator's clock aligned with ours.
  world.h.clock.set("2026-03-10T09:00:00.000Z");
  world.sim.advance(world.h.clock.now().getTime() - world.sim.now().getTime());
});
afterAll(async () => world.close());

function advanceDays(days: number) {
  world.h.clock.advance(days * DAY);
  world.sim.advance(days * DAY);
}

const runSnapshotCron = (...customers: { id: string }[]) => runInsightsSnapshots(world, customers);

type Snapshot = { date: string; spend_minor: number; conversions: number; pulled_at: string; reach: number; impressions: number; clicks: number };

async function snapshots(customerId: string, dimension = ""): Promise<Snapshot[]> {
  const result = await world.h.db.execute(
    sql`select date::text as date, spend_minor::int as spend_minor, conversions::int as conversions, pulled_at::text as pulled_at, reach::int as reach, impressions::int as impressions, clicks::int as clicks
        from ads_insight_snapshots where customer_id = ${customerId} and dimension = ${dimension} order by date, ad_id, value1, value2`,
  );
  return (result as unknown as { rows: Snapshot[] }).rows;
}

function insights<T>(c: { adsReporting: string }, query: string) {
  return world.h.call<T>("GET", `/ads/v1/insights?${query}`, { key: c.adsReporting });
}

// A row's metrics are optional (`fields=` picks them): a missing one makes NaN, as plain arithmetic would.
const sum = (values: (number | undefined)[]) => values.reduce<number>((a, b) => a + (b ?? Number.NaN), 0);
const cents = (value: number | undefined) => Math.round((value ?? Number.NaN) * 100);

describe("insights: snapshots and GET /v1/insights", () => {
  let own: OnboardedCustomer;
  let ads: { id: string; ad_set_id: string; platform_ad_id: string }[];

  beforeAll(async () => {
    own = await onboardedCustomer(world, "Insights");
    // 500 EUR a day, so each day has clicks and conversions enough to show late attribution.
    const adSet = await createAdSet(world, own, { daily_budget_cents: 50_000 });
    const creative = await createImageCreative(world, own);
    ads = [];
    for (const body of [{ link: "https://shop.example.com/spring" }, {}]) {
      const r = await world.h.call<Ads["createAd"]>("POST", "/ads/v1/ads", {
        key: own.adsFull,
        body: { ad_set_id: adSet.id, creative_id: creative.id, status: "ACTIVE", ...body },
      });
      expect(r.status, describeResponse(r)).toBe(201);
      ads.push(r.json.data);
    }
    // Twelve days of delivery, then the first snapshot run: the new account backfills all of them.
    advanceDays(12);
    const fanOut = await runSnapshotCron(own);
    expect(fanOut.accounts).toBeGreaterThanOrEqual(1);
  });

  test("a new account backfills every day since its ads exist, per breakdown, with consistent sums", async () => {
    const totals = await snapshots(own.id);
    expect(new Set(totals.map((row) => row.date)).size, "13 days: creation day to today").toBe(13);
    expect(totals).toHaveLength(13 * ads.length);
    expect(sum(totals.map((row) => row.conversions)), "the simulator's conversions arrive").toBeGreaterThan(0);
    const byAgeGender = await snapshots(own.id, "age,gender");
    expect(sum(byAgeGender.map((row) => row.spend_minor))).toBe(sum(totals.map((row) => row.spend_minor)));
    expect(sum(byAgeGender.map((row) => row.impressions))).toBe(sum(totals.map((row) => row.impressions)));
  });

  test("re-running changes only the last 7 days' conversions; older days are untouched", async () => {
    const before = await snapshots(own.id);
    // Six hours later, the same day in Berlin: the platform has attributed more of the recent conversions.
    advanceDays(0.25);
    await runSnapshotCron(own);
    const after = await snapshots(own.id);
    expect(after).toHaveLength(before.length);
    const today = "2026-03-22";
    const windowStart = "2026-03-16";
    for (const [index, row] of after.entries()) {
      const old = before[index];
      if (!old) throw new Error("row missing");
      expect(row.spend_minor).toBe(old.spend_minor);
      if (row.date < windowStart) expect(row.pulled_at, `day ${row.date} was not rewritten`).toBe(old.pulled_at);
    }
    const changedRecent = after.filter((row, index) => row.date >= windowStart && row.date <= today && row.conversions !== before[index]?.conversions);
    expect(changedRecent.length, "late conversions of the window were updated").toBeGreaterThan(0);
  });

  test("a range sums additive metrics, takes the highest day's reach and derives ratios from the sums", async () => {
    const ad = ads[0];
    if (!ad) throw new Error("no ad");
    const days: Ads["getInsights"]["data"] = [];
    for (const day of ["2026-03-15", "2026-03-16", "2026-03-17", "2026-03-18", "2026-03-19", "2026-03-20", "2026-03-21"]) {
      const r = await insights<Ads["getInsights"]>(own, `level=ad&entity_id=${ad.id}&date_range[since]=${day}&date_range[until]=${day}`);
      expect(r.status, describeResponse(r)).toBe(200);
      expect(r.json.data).toHaveLength(1);
      days.push(r.json.data[0]);
    }
    const week = await insights<Ads["getInsights"]>(own, `level=ad&entity_id=${ad.id}&date_range=last_7d`);
    expect(week.status, describeResponse(week)).toBe(200);
    const [row] = week.json.data;
    expect(row).toMatchObject({ id: ad.id, adset_id: ad.ad_set_id, platform_id: ad.platform_ad_id, date_start: "2026-03-15", date_stop: "2026-03-21" });
    const spendCents = sum(days.map((d) => cents(d.spend)));
    const impressions = sum(days.map((d) => d.impressions));
    const clicks = sum(days.map((d) => d.clicks));
    const conversions = sum(days.map((d) => d.conversions));
    expect(cents(row.spend)).toBe(spendCents);
    expect(row.impressions).toBe(impressions);
    expect(row.clicks).toBe(clicks);
    expect(row.conversions).toBe(conversions);
    expect(row.reach).toBe(Math.max(...days.map((d) => d.reach ?? Number.NaN)));
    expect(row.reach).toBeLessThan(sum(days.map((d) => d.reach)));
    expect(row.ctr).toBeCloseTo((clicks / impressions) * 100, 4);
    expect(row.cpm).toBeCloseTo((spendCents / 100 / impressions) * 1000, 4);
    expect(row.cpc).toBeCloseTo(spendCents / 100 / clicks, 4);
    if (conversions > 0) expect(row.cpa).toBeCloseTo(spendCents / 100 / conversions, 4);
    expect(row.roas).toBeCloseTo((row.conversion_value ?? Number.NaN) / (row.spend ?? Number.NaN), 3);

    // The JSON form of the same custom range gives the same row.
    const asJson = await insights<Ads["getInsights"]>(
      own,
      `level=ad&entity_id=${ad.id}&date_range=${encodeURIComponent(JSON.stringify({ since: "2026-03-15", until: "2026-03-21" }))}`,
    );
    expect(asJson.status, describeResponse(asJson)).toBe(200);
    expect(asJson.json.data).toEqual(week.json.data);
  });

  test("ratios are null where the denominator is 0, and fields select the metrics", async () => {
    const r = await insights<Ads["getInsights"]>(own, `level=ad&date_range=last_7d&fields=spend,cpa,roas`);
    expect(r.status, describeResponse(r)).toBe(200);
    for (const row of r.json.data) {
      expect(Object.keys(row).sort()).toEqual(["adset_id", "cpa", "date_start", "date_stop", "id", "platform_id", "roas", "spend"]);
    }
    // A day before the ads existed has no row at all.
    const none = await insights<Ads["getInsights"]>(own, `level=ad&date_range[since]=2026-03-01&date_range[until]=2026-03-05`);
    expect(none.json.data).toEqual([]);
  });

  test("ad set level adds up its ads", async () => {
    const adSetId = ads[0]?.ad_set_id;
    const adLevel = await insights<Ads["getInsights"]>(own, `level=ad&adset_id=${adSetId}&date_range=last_14d&fields=spend,clicks`);
    const adSetLevel = await insights<Ads["getInsights"]>(own, `level=adset&entity_id=${adSetId}&date_range=last_14d&fields=spend,clicks`);
    expect(adSetLevel.status, describeResponse(adSetLevel)).toBe(200);
    expect(adLevel.json.data).toHaveLength(2);
    expect(adSetLevel.json.data).toHaveLength(1);
    expect(adSetLevel.json.data[0]).toMatchObject({ id: adSetId, adset_id: adSetId, clicks: sum(adLevel.json.data.map((row) => row.clicks)) });
    expect(cents(adSetLevel.json.data[0].spend)).toBe(sum(adLevel.json.data.map((row) => cents(row.spend))));
  });

  test.each(["age", "gender", "country", "publisher_platform", "platform_position", "impression_device", "device_platform", "age,gender", "gender,age"])(
    "breakdown %s: rows carry the breakdown (keys in the order given) and add up to the totals",
    async (breakdowns) => {
      const ad = ads[1];
      const totals = await insights<Ads["getInsights"]>(own, `level=ad&entity_id=${ad?.id}&date_range=last_30d&fields=spend,impressions,clicks`);
      const split = await insights<Ads["getInsights"]>(
        own,
        `level=ad&entity_id=${ad?.id}&date_range=last_30d&fields=spend,impressions,clicks&breakdowns=${breakdowns}`,
      );
      expect(split.status, describeResponse(split)).toBe(200);
      expect(split.json.data.length).toBeGreaterThan(1);
      for (const row of split.json.data) expect(Object.keys(row.breakdown ?? {})).toEqual(breakdowns.split(","));
      const [total] = totals.json.data;
      expect(sum(split.json.data.map((row) => row.impressions))).toBe(total.impressions);
      expect(sum(split.json.data.map((row) => row.clicks))).toBe(total.clicks);
      expect(sum(split.json.data.map((row) => cents(row.spend)))).toBe(cents(total.spend));
    },
  );

  test.each([
    ["level=campaign", 422, "level"],
    ["date_range=last_7d", 400, "level"],
    ["level=ad&breakdowns=region", 422, "breakdowns"],
    ["level=ad&breakdowns=age,country", 422, "breakdowns"],
    ["level=ad&fields=spend,likes", 422, "fields"],
    ["level=ad&date_range=last_week", 422, "date_range"],
    ["level=ad&date_range=%7Bnope", 422, "date_range"],
    ["level=ad&date_range[since]=2026-03-10", 422, "date_range.until"],
    ["level=ad&date_range[since]=2026-03-10&date_range[until]=2026-03-01", 422, "date_range"],
    ["level=ad&date_range[since]=2026-02-30&date_range[until]=2026-03-01", 422, "date_range.since"],
    ["level=adset&adset_id=0f8fad5b-d9cb-469f-a165-70867728950e", 422, "adset_id"],
  ])("%s → %i naming %s", async (query, status, field) => {
    const r = await insights<ErrorEnvelope>(own, query);
    expect(r.status, describeResponse(r)).toBe(status);
    expect(JSON.stringify(r.json.error), describeResponse(r)).toContain(field);
  });

  test("a preset's answer is cached for the blocks' version: warmed by the run, read while current, never after the next run", async () => {
    type Window = { breakdown: string; entity_kind: string; since: string; until: string; version: number; blocks_version: number };
    const windows = async () =>
      (
        (await world.h.db.execute(
          sql`select w.breakdown, w.entity_kind, w.since::text as since, w.until::text as until, w.version, s.blocks_version
              from ads_insight_windows w join ads_insight_syncs s using (customer_id) where w.customer_id = ${own.id}`,
        )) as unknown as { rows: Window[] }
      ).rows;
    const preset = "level=ad&date_range=last_7d&breakdowns=age,gender";
    const first = await insights<Ads["getInsights"]>(own, preset);
    expect(first.status, describeResponse(first)).toBe(200);
    expect(first.json.data.length).toBeGreaterThan(0);
    const range = { since: first.json.data[0].date_start, until: first.json.data[0].date_stop };
    const before = await windows();
    const stored = before.filter((w) => w.breakdown === "age,gender" && w.entity_kind === "ad" && w.since === range.since && w.until === range.until);
    expect(stored, "the preset's rows are kept").toHaveLength(1);
    expect(stored[0]?.version).toBe(stored[0]?.blocks_version);
    // The same range as a custom one is never cached: it is summed from the blocks, and equals the cached answer.
    const customQuery = `level=ad&date_range=${encodeURIComponent(JSON.stringify(range))}&breakdowns=age,gender`;
    const custom = await insights<Ads["getInsights"]>(own, customQuery);
    expect(custom.json.data).toEqual(first.json.data);
    expect(await windows(), "a custom range adds no window").toHaveLength(before.length);

    // The window is what answers while its version is current (emptied here, the answer is empty)…
    await world.h.db.execute(sql`update ads_insight_windows set rows = '[]' where customer_id = ${own.id} and breakdown = 'age,gender'`);
    expect((await insights<Ads["getInsights"]>(own, preset)).json.data).toEqual([]);
    // …and a newer version of the blocks is never answered from it.
    await world.h.db.execute(sql`update ads_insight_syncs set blocks_version = blocks_version + 1 where customer_id = ${own.id}`);
    expect((await insights<Ads["getInsights"]>(own, preset)).json.data).toEqual(first.json.data);

    // The next run revises the last days' conversions: the preset answers the revised figures at once.
    advanceDays(0.25);
    await runSnapshotCron(own);
    const after = await windows();
    expect(
      after.filter((w) => w.version !== w.blocks_version),
      "older versions were removed by the rebuild",
    ).toEqual([]);
    // The run warmed last_7d, last_30d and last_90d for every breakdown and both levels.
    const warmed = new Map<string, number>();
    for (const w of after) warmed.set(`${w.entity_kind} ${w.breakdown}`, (warmed.get(`${w.entity_kind} ${w.breakdown}`) ?? 0) + 1);
    expect(warmed.size, [...warmed.keys()].join("; ")).toBe(2 * 9);
    for (const [key, count] of warmed) expect(count, key).toBe(3);
    const revised = await insights<Ads["getInsights"]>(own, preset);
    expect(revised.json.data).not.toEqual(first.json.data);
    expect(revised.json.data).toEqual((await insights<Ads["getInsights"]>(own, customQuery)).json.data);
  });

  test("another customer's ad, ad set or unknown ids answer 404", async () => {
    const other = await onboardedCustomer(world, "Insights other");
    for (const query of [`level=ad&entity_id=${ads[0]?.id}`, `level=adset&entity_id=${ads[0]?.ad_set_id}`, `level=ad&adset_id=${ads[0]?.ad_set_id}`]) {
      const r = await insights(other, query);
      expect(r.status, describeResponse(r)).toBe(404);
    }
    const mine = await insights<Ads["getInsights"]>(other, "level=ad&date_range=maximum");
    expect(mine.json.data, "no rows of another customer").toEqual([]);
  });

  test("presets follow the ad account's time zone (Europe/Berlin)", async () => {
    // 23:30 UTC on Saturday the 21st is already Sunday the 22nd in Berlin.
    const saved = world.h.clock.now();
    world.h.clock.set("2026-03-21T23:30:00.000Z");
    try {
      const expectations: [string, string, string][] = [
        ["today", "2026-03-22", "2026-03-22"],
        ["yesterday", "2026-03-21", "2026-03-21"],
        ["last_3d", "2026-03-19", "2026-03-21"],
        ["this_week_mon_today", "2026-03-16", "2026-03-22"],
        ["last_week_mon_sun", "2026-03-09", "2026-03-15"],
        ["this_month", "2026-03-01", "2026-03-22"],
      ];
      for (const [preset, since, until] of expectations) {
        const r = await insights<Ads["getInsights"]>(own, `level=ad&date_range=${preset}&fields=spend`);
        expect(r.status, describeResponse(r)).toBe(200);
        expect(r.json.data, preset).toHaveLength(2);
        for (const row of r.json.data) expect(row, preset).toMatchObject({ date_start: since, date_stop: until });
      }
      const lastMonth = await insights<Ads["getInsights"]>(own, "level=ad&date_range=last_month&fields=spend");
      expect(lastMonth.json.data, "no delivery in February").toEqual([]);
    } finally {
      world.h.clock.set(saved);
    }
  });

  test("a failed account keeps its days: the failure is logged and the next run pulls them", async () => {
    const late = await onboardedCustomer(world, "Insights outage");
    await createAd(world, late, { status: "ACTIVE" });
    advanceDays(2);
    world.sim.failNext({ code: 2, count: 3, match: { method: "GET", path: `act_${late.adAccountId}/insights` } });
    await runSnapshotCron(late);
    expect(world.h.logLines.some((line) => line.includes("insights snapshot failed") && line.includes(late.id))).toBe(true);
    const afterFailure = await snapshots(late.id);
    advanceDays(1);
    await runSnapshotCron(late);
    const dates = new Set((await snapshots(late.id)).map((row) => row.date));
    expect(dates.size, "creation day, the two missed days and today").toBe(4);
    expect(afterFailure.length).toBeLessThan((await snapshots(late.id)).length);
  });

  test("a platform rate limit (80004) is waited out by the client: no day is lost", async () => {
    const limited = await onboardedCustomer(world, "Insights limited");
    await createAd(world, limited, { status: "ACTIVE" });
    advanceDays(1);
    world.sim.failNext({ code: 80004, count: 2, match: { method: "GET", path: `act_${limited.adAccountId}/insights` } });
    await runSnapshotCron(limited);
    expect(new Set((await snapshots(limited.id)).map((row) => row.date)).size).toBe(2);
  });

  test("usage headers near the limit pause a pull between pages: the account goes back on the queue, and no day is lost", async () => {
    const busy = await onboardedCustomer(world, "Insights busy");
    for (let i = 0; i < 3; i++) await createAd(world, busy, { status: "ACTIVE" });
    advanceDays(15);
    world.sim.setUsage(busy.adAccountId, 95);
    const worker = world.h.deps.queue.handler(INSIGHTS_SNAPSHOT_TOPIC);
    if (!worker) throw new Error("the snapshot worker is not registered");
    try {
      await worker({ customer_id: busy.id, rate_limit_delays: 0 }, { attempt: 1 });
      const line = world.h.logLines.find((entry) => entry.includes("insights snapshot rate limited") && entry.includes(busy.id));
      expect(line, world.h.logLines.slice(-5).join("\n")).toBeDefined();
      expect(JSON.parse(line ?? "{}")).toMatchObject({ delay_seconds: 60 });
    } finally {
      world.sim.setUsage(busy.adAccountId, 1);
    }
    // The account was paused for the minute Graph's usage called for; after it, with headroom, the same worker pulls every day.
    world.h.clock.advance(60_000);
    await worker({ customer_id: busy.id, rate_limit_delays: 1 }, { attempt: 1 });
    expect(new Set((await snapshots(busy.id)).map((row) => row.date)).size).toBe(16);
  });

  // Last in the file: the account it puts back on the queue waits an hour, which only the harness's close clears.
  test("a rate limit the client cannot wait out (613, an hour to regain access) puts the account back on the queue for later", async () => {
    const limited = await onboardedCustomer(world, "Insights throttled");
    await createAd(world, limited, { status: "ACTIVE" });
    world.sim.failNext({ code: 613, subcode: 1487742, estimatedTimeToRegainAccess: 60, match: { method: "GET", path: `act_${limited.adAccountId}/insights` } });
    const worker = world.h.deps.queue.handler(INSIGHTS_SNAPSHOT_TOPIC);
    if (!worker) throw new Error("the snapshot worker is not registered");
    await worker({ customer_id: limited.id, rate_limit_delays: 0 }, { attempt: 1 });
    const line = world.h.logLines.find((entry) => entry.includes("insights snapshot rate limited") && entry.includes(limited.id));
    expect(line, world.h.logLines.slice(-5).join("\n")).toBeDefined();
    expect(JSON.parse(line ?? "{}")).toMatchObject({ code: 613, subcode: 1487742, delay_seconds: 3600 });
    expect(await snapshots(limited.id), "nothing stored, nothing marked done").toEqual([]);
  });
});
