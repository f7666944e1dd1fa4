import { afterAll, beforeAll, expect, test } from "vitest";
import { SIM_DISAPPROVE } from "../../lib/ads/platform/simulator/markers";
import { DEMO_ADS, seedDemoAds } from "../../lib/ads/seed";
import { describeResponse, type Ads, type Admin } from "../helpers/harness";
import { createAdsWorld, type AdsWorld } from "./support/ads-world";

/**
 * The "done when": the Demo onboarding against the embedded simulator, then the portal flow —
 * image by URL from a local https server with its own certificate, ad set, creative, ad — and the review
 * outcome, watched through GET /v1/status while the simulator's clock moves on.
 */
let world: AdsWorld;
beforeAll(async () => {
  world = await createAdsWorld();
});
afterAll(async () => world.close());

const REVIEW_MS = 30_000;

test("the Demo onboarding is idempotent and re-registers the simulator's side", async () => {
  const { h, sim } = world;
  const c = await h.customer("Demo onboarding");
  await seedDemoAds(h.adsDeps, h.deps.providers.graphSimulator, c.id);
  await seedDemoAds(h.adsDeps, h.deps.providers.graphSimulator, c.id);
  const account = await h.admin<Admin["getCustomerAdAccount"]>("GET", `/v1/customers/${c.id}/ads/account`);
  expect(account.json.data, describeResponse(account)).toMatchObject({ complete: true, missing: [] });
  const targets = await h.admin<Admin["listCustomerAdTargets"]>("GET", `/v1/customers/${c.id}/ads/targets`);
  expect(
    targets.json.data.map((t: { key: string; status: string }) => [t.key, t.status]),
    describeResponse(targets),
  ).toEqual([
    ["demo", "ACTIVE"],
    ["demo-paused", "PAUSED"],
  ]);
  expect(sim.state.tokens.has(DEMO_ADS.accessToken)).toBe(true);
  expect(sim.state.campaigns.get(DEMO_ADS.campaignId)?.status).toBe("ACTIVE");
  // Three sample images, one per placement ratio, listed from the ad account (uploaded once, not per start).
  const images = await h.call<Ads["listImages"]>("GET", "/ads/v1/media/images", { key: c.adsReporting });
  expect(images.json.data.map((i: { width: number; height: number }) => `${i.width}x${i.height}`).sort(), describeResponse(images)).toEqual([
    "1080x1080",
    "1080x1350",
    "1080x1920",
  ]);
  // And the demo templates, one with stored preview values.
  const templates = await h.call<Ads["listAdTemplates"]>("GET", "/ads/v1/templates", { key: c.adsReporting });
  expect(
    templates.json.data.map((t: { name: string }) => t.name),
    describeResponse(templates),
  ).toEqual(expect.arrayContaining(["Quote card", "Sale banner", "Video promo"]));
});

test("portal flow: image by URL, ad set, creative, ad; review ends ACTIVE, or DISAPPROVED with the marker", async () => {
  const { h, sim, images } = world;
  const c = await h.customer("Portal");
  await seedDemoAds(h.adsDeps, h.deps.providers.graphSimulator, c.id);
  const key = c.adsFull;

  const image = await h.call<Ads["uploadImage"]>("POST", "/ads/v1/media/images", { key, body: { url: images.url("/square.jpg") } });
  expect(image.status, describeResponse(image)).toBe(201);
  expect(image.json.data).toEqual({ id: expect.any(String), image_hash: expect.any(String), url: expect.any(String) });

  const adSet = await h.call<Ads["createAdSet"]>("POST", "/ads/v1/adsets", {
    key,
    body: { target: "demo", daily_budget_cents: 2500, targeting: { age_min: 25, age_max: 54, genders: [2] } },
  });
  expect(adSet.status, describeResponse(adSet)).toBe(201);
  expect(adSet.json.data.name).toMatch(/^demo-\d{8}-001$/);

  const creative = await h.call<Ads["createCreative"]>("POST", "/ads/v1/creatives", {
    key,
    body: { image_hash: image.json.data.image_hash, name: "Summer square" },
  });
  expect(creative.status, describeResponse(creative)).toBe(201);
  expect(creative.json.data).toMatchObject({ type: "IMAGE", status: "DRAFT", platform_creative_id: null });

  const approved = await h.call<Ads["createAd"]>("POST", "/ads/v1/ads", {
    key,
    body: {
      ad_set_id: adSet.json.data.id,
      creative_id: creative.json.data.id,
      link: "https://shop.example.com/summer",
      message: "Summer sale: 30 % off.",
      headline: "Summer sale",
      status: "ACTIVE",
    },
  });
  expect(approved.status, describeResponse(approved)).toBe(201);
  expect(approved.json.data).toMatchObject({
    status: "ACTIVE",
    effective_status: "PENDING_REVIEW",
    platform_ad_id: expect.any(String),
    platform_creative_id: expect.any(String),
  });

  const secondCreative = await h.call<Ads["createCreative"]>("POST", "/ads/v1/creatives", { key, body: { image_hash: image.json.data.image_hash } });
  const rejected = await h.call<Ads["createAd"]>("POST", "/ads/v1/ads", {
    key,
    body: {
      ad_set_id: adSet.json.data.id,
      creative_id: secondCreative.json.data.id,
      link: "https://shop.example.com/miracle",
      message: `Lose 10 kg overnight ${SIM_DISAPPROVE}`,
      status: "ACTIVE",
    },
  });
  expect(rejected.status, describeResponse(rejected)).toBe(201);

  for (const ad of [approved, rejected]) {
    const pending = await h.call<Ads["getAdStatus"]>("GET", `/ads/v1/status/${ad.json.data.id}`, { key: c.adsReporting });
    expect(pending.json.data, describeResponse(pending)).toMatchObject({ effective_status: "PENDING_REVIEW", disapproval_reason: null });
  }

  sim.advance(REVIEW_MS);

  const active = await h.call<Ads["getAdStatus"]>("GET", `/ads/v1/status/${approved.json.data.id}`, { key: c.adsReporting });
  expect(active.status, describeResponse(active)).toBe(200);
  expect(active.json.data).toMatchObject({ id: approved.json.data.id, status: "ACTIVE", effective_status: "ACTIVE", disapproval_reason: null });

  const disapproved = await h.call<Ads["getAdStatus"]>("GET", `/ads/v1/status/${rejected.json.data.id}`, { key: c.adsReporting });
  expect(disapproved.json.data, describeResponse(disapproved)).toMatchObject({
    effective_status: "DISAPPROVED",
    disapproval_reason: expect.stringContaining("MISLEADING_CLAIMS"),
  });

  // The live reads refreshed the cached values the list shows.
  const list = await h.call<Ads["listAds"]>("GET", `/ads/v1/ads?adset_id=${adSet.json.data.id}`, { key: c.adsReporting });
  const byId = new Map(list.json.data.map((ad: { id: string; effective_status: string }) => [ad.id, ad.effective_status]));
  expect(byId.get(approved.json.data.id), describeResponse(list)).toBe("ACTIVE");
  expect(byId.get(rejected.json.data.id)).toBe("DISAPPROVED");
});

test("templates portal flow on the Demo seed: list, read, preview PNG without a key, render with a highlight, an ad from it, the video template to READY", async () => {
  const { h, sim } = world;
  const c = await h.customer("Template portal");
  await seedDemoAds(h.adsDeps, h.deps.providers.graphSimulator, c.id);
  const list = await h.call<Ads["listAdTemplates"]>("GET", "/ads/v1/templates", { key: c.adsReporting });
  const byName = new Map(list.json.data.map((t) => [t.name, t]));
  const sale = byName.get("Sale banner");
  const video = byName.get("Video promo");
  expect(sale?.type, describeResponse(list)).toBe("image");
  expect(video?.type).toBe("video");

  const detail = await h.call<Ads["getAdTemplate"]>("GET", `/ads/v1/templates/${sale?.id}`, { key: c.adsReporting });
  expect(
    detail.json.data.params.map((p: { name: string }) => p.name),
    describeResponse(detail),
  ).toEqual(["headline", "price", "cta", "brand_color", "product_image"]);
  const previewUrl = new URL(sale?.preview_urls["9:16"] ?? "");
  const png = await h.call("GET", previewUrl.pathname + previewUrl.search);
  expect(png.status, describeResponse(png)).toBe(302);
  expect((await h.root.request(new URL(png.headers.get("location") ?? "").pathname)).headers.get("content-type")).toBe("image/jpeg");

  const rendered = await h.call<Ads["renderAdTemplate"]>("POST", "/ads/v1/templates/render", {
    key: c.adsFull,
    body: { template: sale?.id, params: { headline: "Our [[best]] price", price: "€ 29", brand_color: "#b91c1c" } },
  });
  expect(rendered.status, describeResponse(rendered)).toBe(200);
  const adSet = await h.call<Ads["createAdSet"]>("POST", "/ads/v1/adsets", { key: c.adsFull, body: { target: "demo", daily_budget_cents: 2500 } });
  const ad = await h.call("POST", "/ads/v1/ads", {
    key: c.adsFull,
    body: { ad_set_id: adSet.json.data.id, creative_id: rendered.json.data.id, link: "https://shop.example.com/best" },
  });
  expect(ad.status, describeResponse(ad)).toBe(201);

  // The video promo's stored preview values name the Demo's sample background in our own store.
  const values = await h.call<Ads["getAdTemplatePreview"]>("GET", `/ads/v1/templates/${video?.id}/preview`, { key: c.adsReporting });
  expect(values.json.data.params.background_video, describeResponse(values)).toMatch(/\/files\/creatives\/[0-9a-f]{64}\.mp4$/);
  const started = await h.call<Ads["renderAdTemplate"]>("POST", "/ads/v1/templates/render", {
    key: c.adsFull,
    body: { template: video?.id, params: values.json.data.params },
  });
  expect(started.status, describeResponse(started)).toBe(202);
  // A portal polls; here the in-process queue says when the job is done.
  await h.deps.queue.idle();
  const ready = await h.call<Ads["getVideoRender"]>("GET", `/ads/v1/templates/render/${started.json.data.id}`, { key: c.adsReporting });
  expect(ready.json.data, describeResponse(ready)).toMatchObject({
    status: "READY",
    video_id: expect.any(String),
    output_url: expect.stringMatching(/\.mp4$/),
  });
  sim.advance(10_000);
  const videoAd = await h.call("POST", "/ads/v1/ads", {
    key: c.adsFull,
    body: { ad_set_id: adSet.json.data.id, creative_id: started.json.data.id, link: "https://shop.example.com/video" },
  });
  expect(videoAd.status, describeResponse(videoAd)).toBe(201);
}, 120_000);
