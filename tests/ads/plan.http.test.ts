import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { seedDemoAds } from "../../lib/ads/seed";
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
 * The plan through one cycle with a controllable clock (the harness's ManualClock, the simulator's clock
 * moved with it): the stage follows the real spend of the snapshots retroactively, the sixth ad of a
 * Starter month is refused until an upgrade, a downgrade waits for the next cycle, and a deactivated
 * account reads but does not write.
 */
let world: AdsWorld;
const DAY = 86_400_000;

beforeAll(async () => {
  world = await createAdsWorld();
  setTime("2026-03-03T09:00:00.000Z");
});
afterAll(async () => world.close());

function setTime(at: string) {
  world.h.clock.set(at);
  world.sim.advance(world.h.clock.now().getTime() - world.sim.now().getTime());
}

function advanceDays(days: number) {
  setTime(new Date(world.h.clock.now().getTime() + days * DAY).toISOString());
}

const runSnapshotCron = (...customers: { id: string }[]) => runInsightsSnapshots(world, customers);

const get = <T>(c: { adsReporting: string }, path: string) => world.h.call<T>("GET", `/ads/v1${path}`, { key: c.adsReporting });
const post = <T>(key: string, path: string, body?: unknown) => world.h.call<T>("POST", `/ads/v1${path}`, { key, body });

describe("plan: stage, usage, upgrade, downgrade, deactivation", () => {
  test("spend crossing 2,500 EUR makes the whole cycle Growth, fee included", async () => {
    const own = await onboardedCustomer(world, "Plan spender");
    // 800 EUR a day (the simulator spends 75–100 % of it): one day stays Starter, five days are Growth.
    const adSet = await createAdSet(world, own, { daily_budget_cents: 80_000 });
    const creative = await createImageCreative(world, own);
    const ad = await post(own.adsFull, "/ads", { ad_set_id: adSet.id, creative_id: creative.id, link: "https://shop.example.com/", status: "ACTIVE" });
    expect(ad.status, describeResponse(ad)).toBe(201);
    await runSnapshotCron(own);

    const starter = await get<Ads["getPlan"]>(own, "/plan");
    expect(starter.status, describeResponse(starter)).toBe(200);
    expect(starter.json.data).toMatchObject({
      state: "active",
      stage: "starter",
      selected_stage: "starter",
      stage_reason: "selection",
      cycle: { start: "2026-03-01", end: "2026-03-31" },
      currency: "EUR",
      base_fee_cents: 14_900,
      media_fee_percent: 5,
      inclusions: { ads: 5, spend_cents: 250_000 },
      scheduled_change: null,
    });

    advanceDays(4);
    await runSnapshotCron(own);
    const usage = await get<Ads["getPlanUsage"]>(own, "/plan/usage");
    expect(usage.status, describeResponse(usage)).toBe(200);
    const spend: number = usage.json.data.spend.spend_cents;
    expect(spend, describeResponse(usage)).toBeGreaterThan(250_000);
    expect(spend).toBeLessThanOrEqual(1_000_000);
    // The plan's spend is the snapshots' spend: the same as the insights of the month.
    const month = await get<Ads["getInsights"]>(own, "/insights?level=ad&date_range=this_month&fields=spend");
    expect(Math.round((month.json.data[0].spend ?? Number.NaN) * 100)).toBe(spend);

    expect(usage.json.data).toMatchObject({
      cycle: { start: "2026-03-01", end: "2026-03-31", days: 31, elapsed_days: 7 },
      stage: "growth",
      ads: { published: 1, included: 25, remaining: 24 },
      spend: { included_cents: 1_000_000, projected_cents: Math.round((spend * 31) / 7) },
      // Retroactive: Growth's base fee and 4 % on all of the month's spend, not only above the threshold.
      fee_to_date_cents: 29_900 + Math.round(spend * 0.04),
    });
    const projected = usage.json.data.spend.projected_cents;
    const expectedStage = projected <= 1_000_000 ? "growth" : projected <= 5_000_000 ? "scale" : "enterprise";
    const terms = { growth: [29_900, 400], scale: [59_900, 300], enterprise: [150_000, 200] } as const;
    const [base, basisPoints] = terms[expectedStage];
    expect(usage.json.data).toMatchObject({ expected_stage: expectedStage, expected_fee_cents: base + Math.round((projected * basisPoints) / 10_000) });

    const growth = await get<Ads["getPlan"]>(own, "/plan");
    expect(growth.json.data).toMatchObject({
      stage: "growth",
      selected_stage: "starter",
      stage_reason: "spend",
      base_fee_cents: 29_900,
      media_fee_percent: 4,
      inclusions: { ads: 25, spend_cents: 1_000_000 },
    });
    expect(growth.json.data.expected_fee_cents).toBe(usage.json.data.expected_fee_cents);

    // The next cycle starts from its own spend: Starter again.
    setTime("2026-04-01T09:00:00.000Z");
    const april = await get<Ads["getPlan"]>(own, "/plan");
    expect(april.json.data).toMatchObject({ stage: "starter", cycle: { start: "2026-04-01", end: "2026-04-30" } });
    setTime("2026-03-07T09:00:00.000Z");
  });

  test("the sixth ad of a Starter month answers 402 quota_exceeded until the upgrade; a downgrade waits for the next cycle", async () => {
    const own = await onboardedCustomer(world, "Plan quota");
    const first = await createAd(world, own);
    for (let i = 0; i < 4; i++) {
      const r = await post(own.adsFull, "/ads", { ad_set_id: first.ad_set_id, creative_id: first.creative_id });
      expect(r.status, describeResponse(r)).toBe(201);
    }
    const sixth = () => post<ErrorEnvelope>(own.adsFull, "/ads", { ad_set_id: first.ad_set_id, creative_id: first.creative_id });
    const refused = await sixth();
    expect(refused.status, describeResponse(refused)).toBe(402);
    expect(refused.json.error).toMatchObject({ code: "quota_exceeded", details: { stage: "starter", included_ads: 5, published_this_month: 5 } });

    const byReporting = await post(own.adsReporting, "/plan/upgrade", {});
    expect(byReporting.status, describeResponse(byReporting)).toBe(403);
    const enterprise = await post(own.adsFull, "/plan/upgrade", { stage: "enterprise" });
    expect(enterprise.status, describeResponse(enterprise)).toBe(422);

    const upgraded = await post<Ads["upgradePlan"]>(own.adsFull, "/plan/upgrade");
    expect(upgraded.status, describeResponse(upgraded)).toBe(200);
    expect(upgraded.json.data).toMatchObject({
      change: "upgraded",
      effective_from: "2026-03-01",
      plan: { stage: "growth", selected_stage: "growth", stage_reason: "selection", base_fee_cents: 29_900, inclusions: { ads: 25 } },
    });
    const published = await sixth();
    expect(published.status, describeResponse(published)).toBe(201);
    const usage = await get<Ads["getPlanUsage"]>(own, "/plan/usage");
    expect(usage.json.data.ads).toEqual({ published: 6, included: 25, remaining: 19 });

    // Upgrading to the stage already running changes nothing.
    const same = await post<Ads["upgradePlan"]>(own.adsFull, "/plan/upgrade", { stage: "growth" });
    expect(same.json.data).toMatchObject({ change: "unchanged", plan: { stage: "growth" } });

    const downgrade = await post<Ads["upgradePlan"]>(own.adsFull, "/plan/upgrade", { stage: "starter" });
    expect(downgrade.status, describeResponse(downgrade)).toBe(200);
    expect(downgrade.json.data).toMatchObject({
      change: "downgrade_scheduled",
      effective_from: "2026-04-01",
      plan: { stage: "growth", scheduled_change: { stage: "starter", effective_from: "2026-04-01" } },
    });
    // Still Growth this month: the seventh ad is published.
    expect((await sixth()).status).toBe(201);

    setTime("2026-04-02T09:00:00.000Z");
    try {
      const april = await get<Ads["getPlan"]>(own, "/plan");
      expect(april.json.data).toMatchObject({ stage: "starter", selected_stage: "starter", scheduled_change: null, inclusions: { ads: 5 } });
    } finally {
      setTime("2026-03-07T09:00:00.000Z");
    }

    const scale = await post<Ads["upgradePlan"]>(own.adsFull, "/plan/upgrade", { stage: "scale" });
    expect(scale.json.data).toMatchObject({
      change: "upgraded",
      plan: { stage: "scale", scheduled_change: null, inclusions: { ads: 100, spend_cents: 5_000_000 } },
    });
    const beyond = await post(own.adsFull, "/plan/upgrade", {});
    expect(beyond.status, describeResponse(beyond)).toBe(409);
  });

  test("deactivation costs nothing; then writes answer 402 payment_required and reads 200 until the operator reactivates", async () => {
    const own: OnboardedCustomer = await onboardedCustomer(world, "Plan leaver");
    await createAd(world, own);
    const byReporting = await post(own.adsReporting, "/account/deactivate");
    expect(byReporting.status, describeResponse(byReporting)).toBe(403);

    const deactivated = await post<Ads["deactivateAccount"]>(own.adsFull, "/account/deactivate");
    expect(deactivated.status, describeResponse(deactivated)).toBe(200);
    expect(deactivated.json.data).toMatchObject({ state: "deactivated", fee_cents: 0, plan: { state: "deactivated" } });

    const write = await post<ErrorEnvelope>(own.adsFull, "/adsets", { target: "main", daily_budget_cents: 2500 });
    expect(write.status, describeResponse(write)).toBe(402);
    expect(write.json.error.code).toBe("payment_required");
    expect((await post(own.adsFull, "/plan/upgrade")).status).toBe(402);
    expect((await post(own.adsFull, "/account/deactivate")).status).toBe(402);
    for (const path of ["/insights?level=ad", "/plan", "/plan/usage", "/ads"]) {
      const read = await get(own, path);
      expect(read.status, `${path}: ${describeResponse(read)}`).toBe(200);
    }
    expect((await get<Ads["getPlan"]>(own, "/plan")).json.data.state).toBe("deactivated");

    const reactivated = await world.h.admin("PATCH", `/v1/customers/${own.id}`, { ads: { account_state: "active" } });
    expect(reactivated.status, describeResponse(reactivated)).toBe(200);
    const again = await post(own.adsFull, "/adsets", { target: "main", daily_budget_cents: 2500 });
    expect(again.status, describeResponse(again)).toBe(201);
  });

  test("portal flow on the Demo: insights of the demo ad sets and ads (preset, custom range, breakdown), then plan, usage, upgrade, deactivate", async () => {
    const c = await world.h.customer("Plan demo");
    await seedDemoAds(world.h.adsDeps, world.h.deps.providers.graphSimulator, c.id);
    const adSets = await get<Ads["listAdSets"]>(c, "/adsets?target=demo");
    expect(adSets.json.data.length, describeResponse(adSets)).toBeGreaterThanOrEqual(2);
    const ads = await get<Ads["listAds"]>(c, "/ads?limit=100");
    expect(ads.json.data.length).toBeGreaterThanOrEqual(6);

    const bySet = await get<Ads["getInsights"]>(c, "/insights?level=adset&date_range=last_30d");
    expect(bySet.status, describeResponse(bySet)).toBe(200);
    expect(bySet.json.data).toHaveLength(2);
    for (const row of bySet.json.data) expect(row.spend).toBeGreaterThan(0);

    const adSetId = bySet.json.data[0].id;
    const custom = await get<Ads["getInsights"]>(
      c,
      `/insights?level=ad&adset_id=${adSetId}&date_range[since]=2026-02-01&date_range[until]=2026-02-28&fields=spend,impressions,clicks,ctr,conversions,roas`,
    );
    expect(custom.status, describeResponse(custom)).toBe(200);
    expect(custom.json.data).toHaveLength(3);

    const split = await get<Ads["getInsights"]>(
      c,
      `/insights?level=ad&entity_id=${custom.json.data[0].id}&date_range=last_7d&breakdowns=age,gender&fields=spend,reach`,
    );
    expect(split.status, describeResponse(split)).toBe(200);
    expect(split.json.data.length).toBe(6 * 3);

    const plan = await get<Ads["getPlan"]>(c, "/plan");
    expect(plan.json.data).toMatchObject({ state: "active", stage: expect.any(String) });
    const usage = await get<Ads["getPlanUsage"]>(c, "/plan/usage");
    expect(usage.json.data.spend.spend_cents).toBeGreaterThan(0);
    const upgraded = await post<Ads["upgradePlan"]>(c.adsFull, "/plan/upgrade");
    expect(upgraded.status, describeResponse(upgraded)).toBe(200);
    expect(upgraded.json.data.change).toBe("upgraded");
    const deactivated = await post(c.adsFull, "/account/deactivate");
    expect(deactivated.status, describeResponse(deactivated)).toBe(200);
    expect((await get(c, "/insights?level=ad&date_range=last_90d")).status).toBe(200);
  });
});
