import { and, eq } from "drizzle-orm";
import { adsAdSets, adsAds, adsCreatives, adsImages } from "../../db/schema";
import type { GraphSimulatorControls } from "../platform/simulator/app";
import type { AdsDeps } from "../deps";
import { findTargetByKey } from "../targets/service";
import { snapshotAccount } from "./snapshots";
import { DACH_COUNTRIES } from "../targeting/schema";

/**
 * The Demo customer's running ad sets and ads, 45 days old, so `GET /v1/insights` and the plan show
 * numbers right after `npm start`. The rows are created once (backdated: they do not count against this
 * month's included ads); the in-memory simulator learns them again on every start under the same fixed
 * ids, and a snapshot run then pulls what is missing (the first start: all 45 days).
 */
const DEMO_HISTORY_DAYS = 45;

const DEMO_AD_SETS = [
  {
    platformId: "120200000000002001",
    name: "demo-spring-sale",
    dailyBudgetCents: 4_000,
    ads: ["120200000000003001", "120200000000003002", "120200000000003003"],
  },
  {
    platformId: "120200000000002002",
    name: "demo-new-arrivals",
    dailyBudgetCents: 2_500,
    ads: ["120200000000003004", "120200000000003005", "120200000000003006"],
  },
] as const;
const DEMO_CREATIVE_PLATFORM_ID = "120200000000004001";
const DEMO_LINK = "https://shop.example.com/spring";

async function ensureRows(deps: AdsDeps, customerId: string): Promise<void> {
  const [existing] = await deps.db
    .select({ id: adsAdSets.id })
    .from(adsAdSets)
    .where(and(eq(adsAdSets.customerId, customerId), eq(adsAdSets.platformAdSetId, DEMO_AD_SETS[0].platformId)));
  if (existing) return;
  const target = await findTargetByKey(deps.db, customerId, "demo");
  const images = await deps.db
    .select({ hash: adsImages.imageHash, width: adsImages.width, height: adsImages.height })
    .from(adsImages)
    .where(eq(adsImages.customerId, customerId));
  const hashOf = (ratio: number) => images.find((image) => Math.abs(image.width / image.height - ratio) < 0.01)?.hash ?? images[0]?.hash;
  const square = hashOf(1);
  if (!target || !square) return;
  const createdAt = new Date(deps.clock.now().getTime() - DEMO_HISTORY_DAYS * 86_400_000);
  await deps.db.transaction(async (tx) => {
    const [creative] = await tx
      .insert(adsCreatives)
      .values({
        customerId,
        name: "Demo spring sale",
        type: "IMAGE",
        status: "ACTIVE",
        imageHashes: { "1:1": square, "4:5": hashOf(0.8) ?? square, "9:16": hashOf(0.5625) ?? square },
        platformCreativeId: DEMO_CREATIVE_PLATFORM_ID,
        createdAt,
        updatedAt: createdAt,
      })
      .returning({ id: adsCreatives.id });
    if (!creative) throw new Error("demo creative insert returned nothing");
    for (const adSet of DEMO_AD_SETS) {
      const [row] = await tx
        .insert(adsAdSets)
        .values({
          customerId,
          targetId: target.id,
          name: adSet.name,
          dailyBudgetCents: adSet.dailyBudgetCents,
          targeting: { age_min: 25, age_max: 54 },
          status: "ACTIVE",
          platformAdSetId: adSet.platformId,
          createdAt,
          updatedAt: createdAt,
        })
        .returning({ id: adsAdSets.id });
      if (!row) throw new Error("demo ad set insert returned nothing");
      await tx.insert(adsAds).values(
        adSet.ads.map((platformAdId, index) => ({
          customerId,
          adSetId: row.id,
          creativeId: creative.id,
          name: `${adSet.name}-ad${String(index + 1).padStart(3, "0")}`,
          status: "ACTIVE" as const,
          effectiveStatus: "ACTIVE",
          platformAdId,
          createdAt,
          updatedAt: createdAt,
        })),
      );
    }
  });
}

/** Puts the stored demo ad sets, creative and ads back into the simulator, with their original creation times. */
async function registerInSimulator(
  deps: AdsDeps,
  controls: GraphSimulatorControls,
  customerId: string,
  accountId: string,
  campaignId: string,
  pageId: string,
): Promise<void> {
  const adSets = await deps.db.select().from(adsAdSets).where(eq(adsAdSets.customerId, customerId));
  const ads = await deps.db.select().from(adsAds).where(eq(adsAds.customerId, customerId));
  const { state } = controls;
  for (const adSet of adSets.filter((row) => DEMO_AD_SETS.some((demo) => demo.platformId === row.platformAdSetId))) {
    const createdMs = adSet.createdAt.getTime();
    state.adsets.set(adSet.platformAdSetId, {
      id: adSet.platformAdSetId,
      accountId,
      campaignId,
      name: adSet.name,
      status: "ACTIVE",
      billingEvent: "IMPRESSIONS",
      optimizationGoal: "LINK_CLICKS",
      targeting: { geo_locations: { countries: [...DACH_COUNTRIES] }, age_min: 25, age_max: 54 },
      dailyBudget: adSet.dailyBudgetCents ?? undefined,
      createdMs,
      updatedMs: createdMs,
    });
    state.creatives.set(DEMO_CREATIVE_PLATFORM_ID, {
      id: DEMO_CREATIVE_PLATFORM_ID,
      accountId,
      name: "Demo spring sale",
      objectStorySpec: { page_id: pageId, link_data: { link: DEMO_LINK, message: "Spring sale: sneakers from 59 EUR" } },
      createdMs,
    });
    for (const ad of ads.filter((row) => row.adSetId === adSet.id)) {
      state.ads.set(ad.platformAdId, {
        id: ad.platformAdId,
        accountId,
        adsetId: adSet.platformAdSetId,
        creativeId: DEMO_CREATIVE_PLATFORM_ID,
        name: ad.name,
        status: ad.status === "ARCHIVED" ? "ARCHIVED" : ad.status,
        reviewStartMs: createdMs - state.timing.reviewDelayMs,
        createdMs: ad.createdAt.getTime(),
        updatedMs: ad.updatedAt.getTime(),
      });
    }
  }
}

export async function seedDemoInsights(
  deps: AdsDeps,
  controls: GraphSimulatorControls,
  customerId: string,
  account: { adAccountId: string; campaignId: string; pageId: string },
): Promise<void> {
  await ensureRows(deps, customerId);
  await registerInSimulator(deps, controls, customerId, account.adAccountId, account.campaignId, account.pageId);
  const result = await snapshotAccount(deps, customerId);
  deps.logger.info("demo insights snapshot", { ...result });
}
