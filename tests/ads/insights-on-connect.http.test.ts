import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { describeResponse, type Ads } from "../helpers/harness";
import { createAdSet, createAdsWorld, createImageCreative, onboardedCustomer, type AdsWorld } from "./support/ads-world";

/**
 * With ADS_INSIGHTS_BACKFILL_ON_CONNECT on (the default outside the test harness), a verified onboarding
 * queues the account's snapshot pull at once: the portal has its history without waiting for the nightly
 * cron. No cron runs in this file.
 */
let world: AdsWorld;
const DAY = 86_400_000;

beforeAll(async () => {
  world = await createAdsWorld({ ADS_INSIGHTS_BACKFILL_ON_CONNECT: "true" });
  world.h.clock.set("2026-05-12T09:00:00.000Z");
  world.sim.advance(world.h.clock.now().getTime() - world.sim.now().getTime());
});
afterAll(async () => world.close());

async function syncOf(customerId: string): Promise<{ synced_through: string | null } | undefined> {
  const result = await world.h.db.execute(sql`select synced_through::text as synced_through from ads_insight_syncs where customer_id = ${customerId}`);
  return (result as unknown as { rows: { synced_through: string | null }[] }).rows[0];
}

async function snapshotDays(customerId: string): Promise<string[]> {
  const result = await world.h.db.execute(
    sql`select distinct date::text as date from ads_insight_snapshots where customer_id = ${customerId} and dimension = '' order by 1`,
  );
  return (result as unknown as { rows: { date: string }[] }).rows.map((row) => row.date);
}

describe("insights backfill on connecting an ad account", () => {
  test("onboarding queues the first pull; reconnecting after days of delivery backfills them without a cron run", async () => {
    const c = await onboardedCustomer(world, "Connect");
    await world.h.deps.queue.idle();
    expect((await syncOf(c.id))?.synced_through, "the onboarding's pull ran: the account is synced up to today").toBe("2026-05-12");

    const adSet = await createAdSet(world, c, { daily_budget_cents: 20_000 });
    const creative = await createImageCreative(world, c);
    const ad = await world.h.call("POST", "/ads/v1/ads", {
      key: c.adsFull,
      body: { ad_set_id: adSet.id, creative_id: creative.id, status: "ACTIVE", link: "https://shop.example.com/spring" },
    });
    expect(ad.status, describeResponse(ad)).toBe(201);
    world.h.clock.advance(5 * DAY);
    world.sim.advance(5 * DAY);
    expect(await snapshotDays(c.id), "nothing is pulled before a connection or a cron").toEqual([]);

    // The operator sets a fresh token (same app): a verified change of credentials queues the pull again.
    const reconnect = await world.h.admin("PATCH", `/v1/customers/${c.id}/ads/account`, { access_token: c.accessToken });
    expect(reconnect.status, describeResponse(reconnect)).toBe(200);
    await world.h.deps.queue.idle();
    expect(await snapshotDays(c.id), "the ad's creation day up to today").toEqual([
      "2026-05-12",
      "2026-05-13",
      "2026-05-14",
      "2026-05-15",
      "2026-05-16",
      "2026-05-17",
    ]);
    expect((await syncOf(c.id))?.synced_through).toBe("2026-05-17");

    const insights = await world.h.call<Ads["getInsights"]>("GET", "/ads/v1/insights?level=ad&date_range=last_7d&fields=spend,impressions", {
      key: c.adsReporting,
    });
    expect(insights.status, describeResponse(insights)).toBe(200);
    expect(insights.json.data).toHaveLength(1);
    expect(insights.json.data[0].impressions).toBeGreaterThan(0);
  });

  test("a change that is not a verified connection (a page id) queues nothing", async () => {
    const c = await onboardedCustomer(world, "Page change");
    await world.h.deps.queue.idle();
    const before = world.sim.requests().filter((r) => r.path.endsWith("/insights")).length;
    const patch = await world.h.admin("PATCH", `/v1/customers/${c.id}/ads/account`, { page_id: c.pageId });
    expect(patch.status, describeResponse(patch)).toBe(200);
    await world.h.deps.queue.idle();
    expect(world.sim.requests().filter((r) => r.path.endsWith("/insights")).length).toBe(before);
  });
});
