import { randomInt } from "node:crypto";
import type { GraphSimulatorControls } from "../../../lib/ads/platform/simulator/app";
import { INSIGHTS_SNAPSHOT_TOPIC } from "../../../lib/ads/insights/snapshots";
import { findCronJob } from "../../../lib/cron";
import { createHarness, describeResponse, type Harness, type Ads, type Admin } from "../../helpers/harness";
import { startImageServer } from "./image-server";

/** A harness whose SSRF-safe client may reach the local image server (test-only settings), plus that server. */
export async function createAdsWorld(env: Record<string, string> = {}) {
  const images = await startImageServer();
  const h = await createHarness({ env: { ALLOW_LOOPBACK_OUTBOUND: "true", OUTBOUND_TRUSTED_CA: images.ca, ...env } });
  return {
    h,
    images,
    sim: graphControls(h),
    close: async () => {
      await h.close();
      await images.close();
    },
  };
}

export type AdsWorld = Awaited<ReturnType<typeof createAdsWorld>>;

export function graphControls(h: Harness): GraphSimulatorControls {
  const running = h.deps.providers.graphSimulator;
  if (!running) throw new Error("the ads tests run against the embedded Graph simulator");
  return running.simulator.controls;
}

const digits = (length: number) => String(randomInt(1, 9)) + Array.from({ length: length - 1 }, () => String(randomInt(0, 10))).join("");

export const TARGET_CONFIG = {
  optimization_goal: "LINK_CLICKS",
  billing_event: "IMPRESSIONS",
  geo_locations: { countries: ["DE", "AT"] },
  publisher_platforms: ["facebook", "instagram"],
  device_platforms: ["mobile", "desktop"],
};

/**
 * A customer onboarded the way the operator does it, through the admin API: its own app, token, ad account
 * and campaigns in the simulator, the onboarding (verified against the simulator), an ACTIVE target `main`
 * and a PAUSED target `paused`.
 */
export async function onboardedCustomer(world: Pick<AdsWorld, "h" | "sim">, name = "Ads customer") {
  const { h, sim } = world;
  const c = await h.customer(name);
  const accessToken = `EAAtest${digits(24)}`;
  const appSecret = `secret-${digits(16)}`;
  const adAccountId = digits(13);
  const pageId = digits(15);
  const campaignId = digits(18);
  const pausedCampaignId = digits(18);
  sim.addApp({ appSecret, accessTokens: [accessToken] });
  sim.addAdAccount({ id: adAccountId, pageIds: [pageId], campaigns: [{ id: campaignId }, { id: pausedCampaignId }] });

  const onboarding = await h.admin<Admin["updateCustomerAdAccount"]>("PATCH", `/v1/customers/${c.id}/ads/account`, {
    access_token: accessToken,
    app_secret: appSecret,
    ad_account_id: `act_${adAccountId}`,
    page_id: pageId,
    instagram_account_id: digits(17),
    dsa_beneficiary: `${name} GmbH`,
    dsa_payor: `${name} GmbH`,
    legal_name: `${name} GmbH`,
  });
  if (onboarding.status !== 200 || onboarding.json.data.complete !== true) throw new Error(`onboarding failed: ${describeResponse(onboarding)}`);
  for (const [key, campaign, status] of [
    ["main", campaignId, "ACTIVE"],
    ["paused", pausedCampaignId, "PAUSED"],
  ] as const) {
    const target = await h.admin("POST", `/v1/customers/${c.id}/ads/targets`, { key, platform_campaign_id: campaign, status, config: TARGET_CONFIG });
    if (target.status !== 201) throw new Error(`target failed: ${describeResponse(target)}`);
  }
  return { ...c, accessToken, appSecret, adAccountId, pageId, campaignId };
}

export type OnboardedCustomer = Awaited<ReturnType<typeof onboardedCustomer>>;

/** Upload → image hash, through the API. */
export async function uploadImage(world: AdsWorld, c: { adsFull: string }, path = "/square.jpg"): Promise<string> {
  const r = await world.h.call<Ads["uploadImage"]>("POST", "/ads/v1/media/images", { key: c.adsFull, body: { url: world.images.url(path) } });
  if (r.status !== 201) throw new Error(`upload failed: ${describeResponse(r)}`);
  return r.json.data.image_hash;
}

export async function createAdSet(world: AdsWorld, c: { adsFull: string }, body: Record<string, unknown> = {}): Promise<Ads["createAdSet"]["data"]> {
  const r = await world.h.call<Ads["createAdSet"]>("POST", "/ads/v1/adsets", { key: c.adsFull, body: { target: "main", daily_budget_cents: 2500, ...body } });
  if (r.status !== 201) throw new Error(`ad set failed: ${describeResponse(r)}`);
  return r.json.data;
}

export async function createImageCreative(world: AdsWorld, c: { adsFull: string }, path = "/square.jpg"): Promise<Ads["createCreative"]["data"]> {
  const hash = await uploadImage(world, c, path);
  const r = await world.h.call<Ads["createCreative"]>("POST", "/ads/v1/creatives", { key: c.adsFull, body: { image_hash: hash } });
  if (r.status !== 201) throw new Error(`creative failed: ${describeResponse(r)}`);
  return r.json.data;
}

export async function createAd(world: AdsWorld, c: { adsFull: string }, body: Record<string, unknown> = {}): Promise<Ads["createAd"]["data"]> {
  const adSet = await createAdSet(world, c);
  const creative = await createImageCreative(world, c);
  const r = await world.h.call<Ads["createAd"]>("POST", "/ads/v1/ads", {
    key: c.adsFull,
    body: { ad_set_id: adSet.id, creative_id: creative.id, link: "https://shop.example.com/summer", ...body },
  });
  if (r.status !== 201) throw new Error(`ad failed: ${describeResponse(r)}`);
  return r.json.data;
}

/**
 * The daily insights cron, as far as these customers are concerned. Embedded (a database per test file) it
 * is the cron itself: its fan-out, the queue and the worker. Against CI's shared PostgreSQL the cron would fan
 * out every test file's accounts, 2 s apart, so there the worker is called for these customers directly.
 */
export async function runInsightsSnapshots(world: Pick<AdsWorld, "h">, customers: readonly { id: string }[]): Promise<{ accounts: number }> {
  if (!process.env.DATABASE_URL) {
    const job = findCronJob("ads-insights-snapshot");
    if (!job) throw new Error("the ads-insights-snapshot cron is not registered");
    const result = await job.run(world.h.cronDeps);
    await world.h.deps.queue.idle();
    return { accounts: Number(result.accounts) };
  }
  const worker = world.h.deps.queue.handler(INSIGHTS_SNAPSHOT_TOPIC);
  if (!worker) throw new Error("the snapshot worker is not registered");
  for (const customer of customers) await worker({ customer_id: customer.id, rate_limit_delays: 0 }, { attempt: 1 });
  return { accounts: customers.length };
}
