import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { describeResponse, type Admin, type Ads, type ErrorEnvelope, type ErrorDetail } from "../helpers/harness";
import { makeOperator } from "../helpers/operators";
import { createAdsWorld, createImageCreative, onboardedCustomer, runInsightsSnapshots, type AdsWorld, type OnboardedCustomer } from "../ads/support/ads-world";

/**
 * Insights per day and ad set, by name, for the console's charts: two ad sets with an ad
 * each deliver for five days on the Graph simulator, the daily snapshot job stores them, and the admin read
 * answers one row per ad set and day, equal to the customer's own insights read for that day.
 */
let world: AdsWorld;
let own: OnboardedCustomer;
let adSets: Ads["createAdSet"]["data"][];
const DAY = 86_400_000;

type Daily = Admin["getCustomerAdSetDailyInsights"];
const daily = <T = Daily>(customerId: string, query: string) => world.h.admin<T>("GET", `/v1/customers/${customerId}/ads/insights/daily${query}`);

beforeAll(async () => {
  world = await createAdsWorld();
  world.h.clock.set("2026-03-10T09:00:00.000Z");
  world.sim.advance(world.h.clock.now().getTime() - world.sim.now().getTime());
  own = await onboardedCustomer(world, "Daily insights");
  const creative = await createImageCreative(world, own);
  adSets = [];
  for (const budget of [20_000, 50_000]) {
    const adSet = await world.h.call<Ads["createAdSet"]>("POST", "/ads/v1/adsets", { key: own.adsFull, body: { target: "main", daily_budget_cents: budget } });
    expect(adSet.status, describeResponse(adSet)).toBe(201);
    adSets.push(adSet.json.data);
    const ad = await world.h.call("POST", "/ads/v1/ads", {
      key: own.adsFull,
      body: { ad_set_id: adSet.json.data.id, creative_id: creative.id, link: "https://shop.example.com/daily", status: "ACTIVE" },
    });
    expect(ad.status, describeResponse(ad)).toBe(201);
  }
  world.h.clock.advance(5 * DAY);
  world.sim.advance(5 * DAY);
  await runInsightsSnapshots(world, [own]);
}, 60_000);
afterAll(async () => world.close());

describe("GET /admin/v1/customers/{id}/ads/insights/daily", () => {
  test("one row per ad set and day, by name; each day equals the customer's insights for that day; days without delivery are zeros", async () => {
    const r = await daily(own.id, "?date_range[since]=2026-03-08&date_range[until]=2026-03-14");
    expect(r.status, describeResponse(r)).toBe(200);
    const { data } = r.json;
    expect(data).toMatchObject({ since: "2026-03-08", until: "2026-03-14", currency: expect.any(String), time_zone: expect.any(String) });
    const names = [...adSets].sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
    expect(data.rows.map((row) => `${row.adset_name} ${row.date}`)).toEqual(
      names.flatMap((adSet) => ["08", "09", "10", "11", "12", "13", "14"].map((day) => `${adSet.name} 2026-03-${day}`)),
    );
    for (const row of data.rows) {
      const adSet = adSets.find((s) => s.id === row.adset_id);
      expect(row.adset_name).toBe(adSet?.name);
      expect(row.platform_id).toBe(adSet?.platform_adset_id);
      if (row.date < "2026-03-10") {
        expect(row, "before the ad set existed").toMatchObject({ impressions: 0, clicks: 0, spend: 0, reach: 0, ctr: null, cpc: null });
        continue;
      }
      const own_ = await world.h.call<Ads["getInsights"]>(
        "GET",
        `/ads/v1/insights?level=adset&entity_id=${row.adset_id}&date_range[since]=${row.date}&date_range[until]=${row.date}`,
        { key: own.adsReporting },
      );
      const { id: _id, adset_id: _adSet, platform_id: _platform, date_start: _start, date_stop: _stop, ...metrics } = own_.json.data[0] ?? {};
      const { date: _date, adset_id: _id2, adset_name: _name, platform_id: _platform2, ...ours } = row;
      expect(ours, `${row.adset_name} on ${row.date}`).toEqual(metrics);
      expect(row.impressions ?? 0).toBeGreaterThan(0);
    }
  });

  test("fields pick the metrics; adset_id one ad set; presets in the account's time zone", async () => {
    const one = adSets[1];
    if (!one) throw new Error("no ad set");
    const r = await daily(own.id, `?date_range=last_3d&fields=spend,clicks&adset_id=${one.id}`);
    expect(r.status, describeResponse(r)).toBe(200);
    expect(r.json.data).toMatchObject({ since: "2026-03-12", until: "2026-03-14" });
    expect(r.json.data.rows).toHaveLength(3);
    for (const row of r.json.data.rows) expect(Object.keys(row).sort()).toEqual(["adset_id", "adset_name", "clicks", "date", "platform_id", "spend"]);
    expect(new Set(r.json.data.rows.map((row) => row.adset_id))).toEqual(new Set([one.id]));
    const none = await daily(own.id, "?date_range[since]=2026-02-01&date_range[until]=2026-02-07");
    expect(none.json.data.rows).toEqual([]);
  });

  test("another customer's ad set or an unknown customer 404; a range over 92 days or an unknown field 422; support may read", async () => {
    const other = await world.h.customer("Daily other");
    expect((await daily(other.id, `?adset_id=${adSets[0]?.id}`)).status).toBe(404);
    expect((await daily(crypto.randomUUID(), "")).status).toBe(404);
    for (const [query, path] of [
      ["?date_range[since]=2025-12-01&date_range[until]=2026-03-14", "date_range"],
      ["?date_range=last_week", "date_range"],
      ["?fields=spend,likes", "fields"],
    ] as const) {
      const r = await daily<ErrorEnvelope<ErrorDetail[]>>(own.id, query);
      expect(r.status, `${query}: ${describeResponse(r)}`).toBe(422);
      expect(r.json.error.details[0]?.path).toBe(path);
    }
    expect((await daily(own.id, "?date_range[since]=2025-12-13&date_range[until]=2026-03-14")).status).toBe(200);
    const support = await makeOperator(world.h, "support");
    const read = await world.h.call<Daily>("GET", `/admin/v1/customers/${own.id}/ads/insights/daily?date_range=last_7d`, { key: support.token });
    expect(read.status, describeResponse(read)).toBe(200);
    expect(read.json.data.rows.length).toBeGreaterThan(0);
  });
});
