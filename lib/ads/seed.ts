import type { RunningGraphSimulator } from "./platform/simulator/server";
import type { AdsDeps } from "./deps";
import { getOnboarding, updateOnboarding } from "./onboarding/service";
import { createTarget, findTargetByKey, listTargets } from "./targets/service";
import { adsImages } from "../db/schema";
import { connectAdAccount } from "./onboarding/service";
import { CREATIVE_RATIOS } from "./platform/placement-creative";
import { DEMO_TEMPLATES, SALE_BANNER, VIDEO_PROMO } from "./templates/demo";
import { RATIO_SIZES } from "./templates/layout";
import { checkValues, renderTemplate, type ResolvedValues } from "./templates/render";
import { seedDemoInsights } from "./insights/demo";
import { assignAdTemplate, createAdTemplate, listAdTemplates, setPreviewValues } from "./templates/service";
import { sampleBackgroundVideo } from "./templates/video";
import { sha256Hex } from "../core/secrets";
import type { CoreDeps } from "../core/context";
import { PLATFORM_WEBHOOK_PATH, platformVerifyToken } from "./webhooks/platform-receiver";
import { DACH_COUNTRIES } from "./targeting/schema";
import { FACEBOOK_FEED_STORY_REELS, INSTAGRAM_STREAM_STORY_REELS } from "./targets/schema";

/**
 * The Demo customer's ad account on the embedded Graph simulator. These values exist only in the
 * simulator; they are not secrets of any real system.
 */
export const DEMO_ADS = {
  accessToken: "EAADemoSimulatorAccessToken0000000000000000",
  appSecret: "demo-simulator-app-secret",
  adAccountId: "1000000000001",
  pageId: "100000000000001",
  instagramAccountId: "17841400000000001",
  campaignId: "120200000000000101",
  pausedCampaignId: "120200000000000102",
  legalName: "Demo GmbH",
} as const;

/** The demo targets: `demo` accepts ad sets and ads; `demo-paused` answers 409, to try that path. */
const DEMO_TARGETS = [
  { key: "demo", campaignId: DEMO_ADS.campaignId, status: "ACTIVE" },
  { key: "demo-paused", campaignId: DEMO_ADS.pausedCampaignId, status: "PAUSED" },
] as const;

/**
 * Onboards the Demo customer against the embedded simulator so every ads endpoint works right after
 * `npm start`. The simulator lives in memory, so its app, token, ad account, page and campaigns are
 * registered on every start; the database rows are created once. Without the simulator (a real
 * `GRAPH_API_URL`) there is nothing to onboard against and nothing happens.
 */
export async function seedDemoAds(
  deps: AdsDeps,
  graphSimulator: RunningGraphSimulator | null,
  customerId: string,
  options: { media?: "now" | "deferred" } = {},
): Promise<() => Promise<void>> {
  const simulator = graphSimulator?.simulator;
  if (!simulator) return async () => undefined;
  const controls = simulator.controls;
  if (!controls.state.tokens.has(DEMO_ADS.accessToken)) {
    // Target status is mirrored to the campaign, so a restart brings the campaigns back as the operator left the targets.
    const stored = new Map((await listTargets(deps.db, customerId)).map((target) => [target.key, target.status]));
    controls.addApp({ appSecret: DEMO_ADS.appSecret, accessTokens: [DEMO_ADS.accessToken] });
    controls.addAdAccount({
      id: DEMO_ADS.adAccountId,
      name: "Demo ad account",
      currency: "EUR",
      pageIds: [DEMO_ADS.pageId],
      campaigns: DEMO_TARGETS.map((target) => ({
        id: target.campaignId,
        name: `Demo campaign (${target.key})`,
        status: stored.get(target.key) ?? target.status,
      })),
    });
  }

  const onboarding = await getOnboarding(deps.db, customerId);
  if (!onboarding.complete) {
    await updateOnboarding(
      deps,
      customerId,
      {
        access_token: DEMO_ADS.accessToken,
        app_secret: DEMO_ADS.appSecret,
        ad_account_id: DEMO_ADS.adAccountId,
        page_id: DEMO_ADS.pageId,
        instagram_account_id: DEMO_ADS.instagramAccountId,
        dsa_beneficiary: DEMO_ADS.legalName,
        dsa_payor: DEMO_ADS.legalName,
        legal_name: DEMO_ADS.legalName,
      },
      { backfill: false },
    );
  }
  for (const target of DEMO_TARGETS) {
    if (await findTargetByKey(deps.db, customerId, target.key)) continue;
    await createTarget(deps, customerId, {
      key: target.key,
      platform_campaign_id: target.campaignId,
      status: target.status,
      config: {
        optimization_goal: "LINK_CLICKS",
        billing_event: "IMPRESSIONS",
        bid_strategy: "LOWEST_COST_WITHOUT_CAP",
        geo_locations: { countries: [...DACH_COUNTRIES] },
        publisher_platforms: ["facebook", "instagram"],
        facebook_positions: [...FACEBOOK_FEED_STORY_REELS],
        instagram_positions: [...INSTAGRAM_STREAM_STORY_REELS],
        device_platforms: ["mobile", "desktop"],
        advantage_audience: 0,
      },
    });
  }
  // The media (templates with a rendered video background, sample images, insights) take the heavy renderers
  // (satori, resvg, sharp, ffmpeg): `deferred` hands them back to run after the server listens, so a start
  // is not held by them (nor its memory raised before the first request).
  const media = async () => {
    await seedDemoTemplates(deps, customerId);
    await seedSampleImages(deps, customerId);
    await seedDemoInsights(deps, controls, customerId, { adAccountId: DEMO_ADS.adAccountId, campaignId: DEMO_ADS.campaignId, pageId: DEMO_ADS.pageId });
  };
  if (options.media === "deferred") return media;
  await media();
  return async () => undefined;
}

/**
 * Three sample images (1:1, 4:5, 9:16: the sale banner rendered with its examples) in the Demo ad account,
 * so `GET /v1/media/images` lists them and creatives and ads can be made right after start without an
 * https image server. The simulator forgets images on restart, so they are uploaded again when missing
 * (same bytes, same hashes, same rows).
 */
async function seedSampleImages(deps: AdsDeps, customerId: string): Promise<void> {
  const account = await connectAdAccount(deps, customerId);
  if ((await account.session.listImages(account.adAccountId)).length >= CREATIVE_RATIOS.length) return;
  // The examples hold no image URL, so nothing is fetched.
  const { text, color } = checkValues(SALE_BANNER, {}, { useExamples: true });
  const values: ResolvedValues = { text, color, image: new Map() };
  const formats = await renderTemplate(SALE_BANNER, values);
  const now = deps.clock.now();
  for (const ratio of CREATIVE_RATIOS) {
    const bytes = formats[ratio];
    const image = await account.session.uploadImage(account.adAccountId, bytes);
    const { width, height } = RATIO_SIZES[ratio];
    const values = { url: image.url, width, height, bytes: bytes.length, format: "jpeg" };
    await deps.db
      .insert(adsImages)
      .values({ customerId, imageHash: image.hash, ...values, createdAt: now })
      .onConflictDoUpdate({ target: [adsImages.customerId, adsImages.imageHash], set: values });
  }
}

/**
 * The demo templates exist once (by name) and are assigned to the Demo customer, the sale banner and the
 * video promo with stored preview values, so `GET /v1/templates` and the preview URLs show something right
 * after start. The video promo's values name a sample background video published in our own store, so
 * `GET /v1/templates/{id}/preview` hands over values that render as they are.
 */
async function seedDemoTemplates(deps: AdsDeps, customerId: string): Promise<void> {
  const existing = new Map((await listAdTemplates(deps.db)).map((t) => [t.name, t.id]));
  for (const seed of DEMO_TEMPLATES) {
    const id =
      existing.get(seed.name) ??
      (
        await createAdTemplate(deps, {
          name: seed.name,
          description: seed.description,
          type: seed.type,
          params: seed.params,
          layouts: seed.layouts,
          highlight: seed.highlight,
        })
      ).id;
    const assigned = await assignAdTemplate(deps, customerId, id);
    if (seed === SALE_BANNER && Object.keys(assigned.preview_values).length === 0) {
      await setPreviewValues(deps, customerId, id, { headline: "Demo [[Sale]]: sneakers for spring", price: "€ 59.00", brand_color: "#1d4ed8" });
    }
    if (seed === VIDEO_PROMO && Object.keys(assigned.preview_values).length === 0) {
      const video = await sampleBackgroundVideo();
      const { url } = await deps.blobs.put(`creatives/${sha256Hex(video)}.mp4`, video, { contentType: "video/mp4", cacheControlMaxAge: 31_536_000 });
      await setPreviewValues(deps, customerId, id, {
        headline: "Demo [[video]] in three formats",
        subline: "Rendered on your own background",
        brand_color: "#e11d48",
        background_video: url,
      });
    }
  }
}

/**
 * Embedded mode: subscribes the Graph simulator to this deployment's receiver, with the verification
 * handshake the platform makes when the webhook is configured in the app dashboard.
 */
export async function pointGraphSimulatorAtReceiver(
  deps: Pick<CoreDeps, "config" | "secrets"> & { providers: { graphSimulator: RunningGraphSimulator | null } },
  origin: string,
): Promise<void> {
  const controls = deps.providers.graphSimulator?.simulator.controls;
  if (!controls) return;
  await controls.subscribeWebhooks({ url: `${origin.replace(/\/$/, "")}${PLATFORM_WEBHOOK_PATH}`, verifyToken: platformVerifyToken(deps) });
}
