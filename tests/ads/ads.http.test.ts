import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { describeResponse, type Ads, type ErrorEnvelope, type MissingDetails, type StateDetails, type FieldIssue } from "../helpers/harness";
import { createAd, createAdSet, createAdsWorld, createImageCreative, onboardedCustomer, type AdsWorld, type OnboardedCustomer } from "./support/ads-world";

let world: AdsWorld;
let c: OnboardedCustomer;
beforeAll(async () => {
  world = await createAdsWorld();
  c = await onboardedCustomer(world, "Ads");
  // Many ads below: the Scale stage includes 100 a month; the quota has its own customer.
  await world.h.admin("PATCH", `/v1/customers/${c.id}`, { ads: { stage: "scale" } });
});
afterAll(async () => world.close());

const post = <T = Ads["createAd"]>(body: unknown, key = c.adsFull) => world.h.call<T>("POST", "/ads/v1/ads", { key, body });
const REVIEW_MS = 30_000;

describe("POST /v1/ads", () => {
  test("builds the final three-ratio creative from the draft and creates the ad PAUSED", async () => {
    const adSet = await createAdSet(world, c);
    const creative = await createImageCreative(world, c);
    world.sim.clearRequests();
    const r = await post({
      ad_set_id: adSet.id,
      creative_id: creative.id,
      link: "https://shop.example.com/summer?ref=portal",
      display_link: "shop.example.com/summer",
      call_to_action: "SIGN_UP",
      message: "Summer sale: 30 % off running shoes.",
      headline: "Summer sale",
      description: "Only until Sunday",
    });
    expect(r.status, describeResponse(r)).toBe(201);
    expect(r.json.data).toMatchObject({
      id: expect.any(String),
      ad_set_id: adSet.id,
      creative_id: creative.id,
      name: `${adSet.name}-ad001`,
      status: "PAUSED",
      effective_status: "PENDING_REVIEW",
      disapproval_reason: null,
      platform_ad_id: expect.stringMatching(/^\d+$/),
      platform_creative_id: expect.stringMatching(/^\d+$/),
    });

    const built = world.sim.state.creatives.get(r.json.data.platform_creative_id ?? "");
    expect(built?.objectStorySpec).toEqual({ page_id: c.pageId, instagram_user_id: expect.any(String) });
    const feed = built?.assetFeedSpec;
    expect(feed?.images?.map((image) => [image.hash, image.adlabels?.[0]?.name])).toEqual([
      [creative.image_hash, "ratio_1x1"],
      [creative.image_hash, "ratio_4x5"],
      [creative.image_hash, "ratio_9x16"],
    ]);
    expect(feed?.asset_customization_rules?.map((rule) => rule.image_label?.name)).toEqual(["ratio_9x16", "ratio_4x5", "ratio_1x1"]);
    expect(feed?.optimization_type).toBe("PLACEMENT");
    expect(feed?.bodies).toEqual([{ text: "Summer sale: 30 % off running shoes." }]);
    expect(feed?.titles).toEqual([{ text: "Summer sale" }]);
    expect(feed?.descriptions).toEqual([{ text: "Only until Sunday" }]);
    expect(feed?.call_to_action_types).toEqual(["SIGN_UP"]);
    const link = new URL(feed?.link_urls?.[0]?.website_url ?? "");
    expect(Object.fromEntries(link.searchParams)).toEqual({
      ref: "portal",
      utm_source: "meta",
      utm_medium: "paid_social",
      utm_campaign: "main",
      utm_content: creative.id,
    });
    expect(feed?.link_urls?.[0]?.display_url).toBe("shop.example.com/summer");

    const upstreamAd = world.sim.state.ads.get(r.json.data.platform_ad_id);
    expect(upstreamAd).toMatchObject({
      status: "PAUSED",
      adsetId: adSet.platform_adset_id,
      creativeId: r.json.data.platform_creative_id,
      name: r.json.data.name,
    });

    const draft = await world.h.call<Ads["listCreatives"]>("GET", "/ads/v1/creatives?status=ACTIVE", { key: c.adsFull });
    expect(draft.json.data.find((x: { id: string }) => x.id === creative.id)?.platform_creative_id).toBe(r.json.data.platform_creative_id);
  });

  test("call to action defaults to LEARN_MORE; a given name and status ACTIVE are used", async () => {
    const adSet = await createAdSet(world, c);
    const creative = await createImageCreative(world, c);
    const r = await post({ ad_set_id: adSet.id, creative_id: creative.id, link: "https://shop.example.com/", name: "my ad", status: "ACTIVE" });
    expect(r.json.data, describeResponse(r)).toMatchObject({ name: "my ad", status: "ACTIVE" });
    expect(world.sim.state.creatives.get(r.json.data.platform_creative_id ?? "")?.assetFeedSpec?.call_to_action_types).toEqual(["LEARN_MORE"]);
    expect(world.sim.state.ads.get(r.json.data.platform_ad_id)?.status).toBe("ACTIVE");
  });

  test("a final creative is reused as it is: no link needed, copy ignored, no new platform creative", async () => {
    const first = await createAd(world, c, { message: "Original copy" });
    world.sim.clearRequests();
    const r = await post({ ad_set_id: first.ad_set_id, creative_id: first.creative_id, message: "Ignored copy", headline: "Ignored" });
    expect(r.status, describeResponse(r)).toBe(201);
    expect(r.json.data.platform_creative_id).toBe(first.platform_creative_id);
    expect(r.json.data.name).toMatch(/-ad002$/);
    expect(world.sim.requests().filter((request) => request.path.endsWith("/adcreatives"))).toEqual([]);
    expect(world.sim.state.creatives.get(first.platform_creative_id ?? "")?.assetFeedSpec?.bodies).toEqual([{ text: "Original copy" }]);
  });

  test("a video creative: the video must be READY by now, thumbnail or not", async () => {
    const uploaded = await world.h.call<Ads["uploadVideo"]>("POST", "/ads/v1/media/videos", {
      key: c.adsFull,
      body: { url: "https://videos.example.com/ad.mp4" },
    });
    const thumb = await world.h.call<Ads["uploadImage"]>("POST", "/ads/v1/media/images", { key: c.adsFull, body: { url: world.images.url("/portrait.png") } });
    const creative = await world.h.call<Ads["createCreative"]>("POST", "/ads/v1/creatives", {
      key: c.adsFull,
      body: { video_id: uploaded.json.data.video_id, thumbnail_hash: thumb.json.data.image_hash },
    });
    const adSet = await createAdSet(world, c);
    const early = await post<ErrorEnvelope<StateDetails>>({ ad_set_id: adSet.id, creative_id: creative.json.data.id, link: "https://shop.example.com/" });
    expect(early.status, describeResponse(early)).toBe(409);
    expect(early.json.error.details.reason).toBe("video_processing");
    world.sim.advance(10_000);
    const r = await post({ ad_set_id: adSet.id, creative_id: creative.json.data.id, link: "https://shop.example.com/" });
    expect(r.status, describeResponse(r)).toBe(201);
    const feed = world.sim.state.creatives.get(r.json.data.platform_creative_id ?? "")?.assetFeedSpec;
    expect(feed?.videos?.map((v) => [v.video_id, v.thumbnail_hash])).toEqual(Array(3).fill([uploaded.json.data.video_id, thumb.json.data.image_hash]));
    expect(feed?.ad_formats).toEqual(["SINGLE_VIDEO"]);
  });

  test.each([
    ["no link while the creative is a draft", {}, "link"],
    ["a link with our tracking parameters", { link: "https://shop.example.com/?utm_source=x" }, "link"],
    ["a link that is not http(s)", { link: "ftp://shop.example.com/" }, "link"],
    ["a message over 125 characters", { link: "https://a.example.com/", message: "m".repeat(126) }, "message"],
    ["a headline over 40 characters", { link: "https://a.example.com/", headline: "h".repeat(41) }, "headline"],
    ["a description over 25 characters", { link: "https://a.example.com/", description: "d".repeat(26) }, "description"],
    ["an unknown call to action", { link: "https://a.example.com/", call_to_action: "SHOP_NOW" }, "call_to_action"],
    ["a display link with a scheme", { link: "https://a.example.com/", display_link: "https://shop.example.com" }, "display_link"],
    ["a display link with a query", { link: "https://a.example.com/", display_link: "shop.example.com/?a=1" }, "display_link"],
    ["status ARCHIVED", { link: "https://a.example.com/", status: "ARCHIVED" }, "status"],
  ])("422 for %s", async (_label, extra, field) => {
    const adSet = await createAdSet(world, c);
    const creative = await createImageCreative(world, c);
    const r = await post<ErrorEnvelope<FieldIssue[]>>({ ad_set_id: adSet.id, creative_id: creative.id, ...extra });
    expect(r.status, describeResponse(r)).toBe(422);
    expect(r.json.error.details.map((d: { field: string }) => d.field)).toEqual([field]);
  });

  test("message, headline and description at their limits pass", async () => {
    const r = await createAd(world, c, { message: "m".repeat(125), headline: "h".repeat(40), description: "d".repeat(25) });
    expect(r.status).toBe("PAUSED");
  });

  test("400 without ad_set_id; 422 for ad sets and creatives that are unknown or another customer's", async () => {
    const creative = await createImageCreative(world, c);
    expect((await post({ creative_id: creative.id, link: "https://a.example.com/" })).status).toBe(400);
    const other = await onboardedCustomer(world, "Ads other");
    const foreignSet = await createAdSet(world, other);
    const foreignSetAnswer = await post<ErrorEnvelope<FieldIssue[]>>({ ad_set_id: foreignSet.id, creative_id: creative.id, link: "https://a.example.com/" });
    expect(foreignSetAnswer.status, describeResponse(foreignSetAnswer)).toBe(422);
    expect(foreignSetAnswer.json.error.details[0].field).toBe("ad_set_id");
    const adSet = await createAdSet(world, c);
    const foreignCreative = await createImageCreative(world, other);
    const foreignCreativeAnswer = await post<ErrorEnvelope<FieldIssue[]>>({
      ad_set_id: adSet.id,
      creative_id: foreignCreative.id,
      link: "https://a.example.com/",
    });
    expect(foreignCreativeAnswer.json.error.details[0].field, describeResponse(foreignCreativeAnswer)).toBe("creative_id");
  });

  test("an archived ad set is 409; a paused target is 409", async () => {
    const own = await onboardedCustomer(world, "Ads conflicts");
    const adSet = await createAdSet(world, own);
    const creative = await createImageCreative(world, own);
    await world.h.admin("PATCH", `/v1/customers/${own.id}/ads/targets/main`, { status: "PAUSED" });
    const paused = await post<ErrorEnvelope<StateDetails>>({ ad_set_id: adSet.id, creative_id: creative.id, link: "https://a.example.com/" }, own.adsFull);
    expect(paused.status, describeResponse(paused)).toBe(409);
    expect(paused.json.error.details.reason).toBe("target_inactive");
    await world.h.call("DELETE", `/ads/v1/adsets/${adSet.id}`, { key: own.adsFull });
    const archived = await post<ErrorEnvelope<StateDetails>>({ ad_set_id: adSet.id, creative_id: creative.id, link: "https://a.example.com/" }, own.adsFull);
    expect(archived.status, describeResponse(archived)).toBe(409);
    expect(archived.json.error.details.reason).toBe("ad_set_archived");
  });

  test("incomplete onboarding is 422 with details.missing", async () => {
    const bare = await world.h.customer("Ads bare");
    const r = await post<ErrorEnvelope<MissingDetails>>(
      { ad_set_id: crypto.randomUUID(), creative_id: crypto.randomUUID(), link: "https://a.example.com/" },
      bare.adsFull,
    );
    expect(r.status, describeResponse(r)).toBe(422);
    expect(r.json.error.details.missing).toContain("access_token");
  });

  test("401 without a key, 403 with a reporting key", async () => {
    const body = { ad_set_id: crypto.randomUUID(), creative_id: crypto.randomUUID(), link: "https://a.example.com/" };
    expect((await world.h.call("POST", "/ads/v1/ads", { body })).status).toBe(401);
    expect((await post(body, c.adsReporting)).status).toBe(403);
  });
});

describe("quota: included ads per stage in the running calendar month (UTC)", () => {
  test("Starter publishes 5 a month; the 6th is 402 quota_exceeded; archiving frees nothing; an upgrade or a new month does", async () => {
    const own = await onboardedCustomer(world, "Ads quota");
    const first = await createAd(world, own);
    for (let i = 0; i < 4; i++) {
      const r = await post({ ad_set_id: first.ad_set_id, creative_id: first.creative_id }, own.adsFull);
      expect(r.status, describeResponse(r)).toBe(201);
    }
    await world.h.call("DELETE", `/ads/v1/ads/${first.id}`, { key: own.adsFull });
    world.sim.clearRequests();
    const sixth = await post<ErrorEnvelope>({ ad_set_id: first.ad_set_id, creative_id: first.creative_id }, own.adsFull);
    expect(sixth.status, describeResponse(sixth)).toBe(402);
    expect(sixth.json.error.code).toBe("quota_exceeded");
    expect(sixth.json.error.details).toMatchObject({ stage: "starter", included_ads: 5, published_this_month: 5 });
    expect(
      world.sim.requests().filter((request) => request.method === "POST"),
      "nothing was published",
    ).toEqual([]);

    await world.h.admin("PATCH", `/v1/customers/${own.id}`, { ads: { stage: "growth" } });
    expect((await post({ ad_set_id: first.ad_set_id, creative_id: first.creative_id }, own.adsFull)).status).toBe(201);

    await world.h.admin("PATCH", `/v1/customers/${own.id}`, { ads: { stage: "enterprise", enterprise_included_ads: 6 } });
    const capped = await post<ErrorEnvelope>({ ad_set_id: first.ad_set_id, creative_id: first.creative_id }, own.adsFull);
    expect(capped.json.error?.details, describeResponse(capped)).toMatchObject({ stage: "enterprise", included_ads: 6, published_this_month: 6 });

    const now = world.h.clock.now();
    world.h.clock.set(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 0, 0, 1)));
    try {
      const nextMonth = await post({ ad_set_id: first.ad_set_id, creative_id: first.creative_id }, own.adsFull);
      expect(nextMonth.status, describeResponse(nextMonth)).toBe(201);
    } finally {
      world.h.clock.set(now);
    }
  });
});

describe("GET /v1/ads", () => {
  test("filters by ad set and status and pages; only the caller's ads", async () => {
    const own = await onboardedCustomer(world, "Ads list");
    world.h.clock.advance(1000);
    const first = await createAd(world, own);
    world.h.clock.advance(1000);
    const second = await createAd(world, own, { status: "ACTIVE" });
    const all = await world.h.call<Ads["listAds"]>("GET", "/ads/v1/ads", { key: own.adsReporting });
    expect(
      all.json.data.map((ad: { id: string }) => ad.id),
      describeResponse(all),
    ).toEqual([second.id, first.id]);
    const bySet = await world.h.call<Ads["listAds"]>("GET", `/ads/v1/ads?adset_id=${first.ad_set_id}`, { key: own.adsReporting });
    expect(bySet.json.data.map((ad: { id: string }) => ad.id)).toEqual([first.id]);
    const active = await world.h.call<Ads["listAds"]>("GET", "/ads/v1/ads?status=ACTIVE", { key: own.adsReporting });
    expect(active.json.data.map((ad: { id: string }) => ad.id)).toEqual([second.id]);
    const page = await world.h.call<Ads["listAds"]>("GET", "/ads/v1/ads?limit=1&offset=1", { key: own.adsReporting });
    expect(page.json.data.map((ad: { id: string }) => ad.id)).toEqual([first.id]);
    expect((await world.h.call("GET", "/ads/v1/ads?adset_id=nope", { key: own.adsReporting })).status).toBe(422);
    expect((await world.h.call("GET", "/ads/v1/ads")).status).toBe(401);
  });
});

describe("PATCH /v1/ads/{id}", () => {
  test("activates here and upstream and answers the live effective status", async () => {
    const ad = await createAd(world, c);
    const r = await world.h.call<Ads["updateAd"]>("PATCH", `/ads/v1/ads/${ad.id}`, { key: c.adsFull, body: { status: "ACTIVE" } });
    expect(r.status, describeResponse(r)).toBe(200);
    expect(r.json.data).toMatchObject({ id: ad.id, status: "ACTIVE", effective_status: "PENDING_REVIEW", platform_ad_id: ad.platform_ad_id });
    expect(world.sim.state.ads.get(ad.platform_ad_id)?.status).toBe("ACTIVE");
    world.sim.advance(REVIEW_MS);
    const paused = await world.h.call<Ads["updateAd"]>("PATCH", `/ads/v1/ads/${ad.id}`, { key: c.adsFull, body: { status: "PAUSED" } });
    expect(paused.json.data, describeResponse(paused)).toMatchObject({ status: "PAUSED", effective_status: "PAUSED" });
  });

  test("409 under a paused target and for an archived ad; 404 for another customer's ad", async () => {
    const own = await onboardedCustomer(world, "Ads patch conflicts");
    const ad = await createAd(world, own);
    const other = await onboardedCustomer(world, "Ads patch intruder");
    expect((await world.h.call("PATCH", `/ads/v1/ads/${ad.id}`, { key: other.adsFull, body: { status: "ACTIVE" } })).status).toBe(404);
    expect((await world.h.call("DELETE", `/ads/v1/ads/${ad.id}`, { key: other.adsFull })).status).toBe(404);
    expect((await world.h.call("GET", `/ads/v1/status/${ad.id}`, { key: other.adsFull })).status).toBe(404);
    await world.h.admin("PATCH", `/v1/customers/${own.id}/ads/targets/main`, { status: "PAUSED" });
    const paused = await world.h.call("PATCH", `/ads/v1/ads/${ad.id}`, { key: own.adsFull, body: { status: "ACTIVE" } });
    expect(paused.status, describeResponse(paused)).toBe(409);
    await world.h.admin("PATCH", `/v1/customers/${own.id}/ads/targets/main`, { status: "ACTIVE" });
    await world.h.call("DELETE", `/ads/v1/ads/${ad.id}`, { key: own.adsFull });
    const archived = await world.h.call("PATCH", `/ads/v1/ads/${ad.id}`, { key: own.adsFull, body: { status: "ACTIVE" } });
    expect(archived.status, describeResponse(archived)).toBe(409);
  });

  test("400 without status, 422 for another value, 403 with a reporting key", async () => {
    const ad = await createAd(world, c);
    expect((await world.h.call("PATCH", `/ads/v1/ads/${ad.id}`, { key: c.adsFull, body: {} })).status).toBe(400);
    expect((await world.h.call("PATCH", `/ads/v1/ads/${ad.id}`, { key: c.adsFull, body: { status: "ARCHIVED" } })).status).toBe(422);
    expect((await world.h.call("PATCH", `/ads/v1/ads/${ad.id}`, { key: c.adsReporting, body: { status: "ACTIVE" } })).status).toBe(403);
  });
});

describe("DELETE /v1/ads/{id}", () => {
  test("archives here and upstream; again answers the same without a platform call", async () => {
    const ad = await createAd(world, c);
    const r = await world.h.call<Ads["archiveAd"]>("DELETE", `/ads/v1/ads/${ad.id}`, { key: c.adsFull });
    expect(r.status, describeResponse(r)).toBe(200);
    expect(r.json.data).toMatchObject({ id: ad.id, status: "ARCHIVED", effective_status: "ARCHIVED" });
    expect(world.sim.state.ads.get(ad.platform_ad_id)?.status).toBe("ARCHIVED");
    world.sim.clearRequests();
    expect((await world.h.call<Ads["archiveAd"]>("DELETE", `/ads/v1/ads/${ad.id}`, { key: c.adsFull })).json.data.status).toBe("ARCHIVED");
    expect(world.sim.requests()).toEqual([]);
    expect((await world.h.call("DELETE", `/ads/v1/ads/${ad.id}`, { key: c.adsReporting })).status).toBe(403);
  });
});

describe("GET /v1/status/{ad_id}", () => {
  test("reads live and refreshes the cached value; a paused ad ends PAUSED after review", async () => {
    const ad = await createAd(world, c);
    world.sim.advance(REVIEW_MS);
    const before = await world.h.call<Ads["listAds"]>("GET", `/ads/v1/ads?adset_id=${ad.ad_set_id}`, { key: c.adsFull });
    expect(before.json.data[0].effective_status, "cached until asked").toBe("PENDING_REVIEW");
    const live = await world.h.call<Ads["getAdStatus"]>("GET", `/ads/v1/status/${ad.id}`, { key: c.adsReporting });
    expect(live.json.data, describeResponse(live)).toEqual({
      id: ad.id,
      platform_ad_id: ad.platform_ad_id,
      status: "PAUSED",
      effective_status: "PAUSED",
      disapproval_reason: null,
      checked_at: expect.any(String),
    });
    const after = await world.h.call<Ads["listAds"]>("GET", `/ads/v1/ads?adset_id=${ad.ad_set_id}`, { key: c.adsFull });
    expect(after.json.data[0]).toMatchObject({ effective_status: "PAUSED", status_checked_at: live.json.data.checked_at });
  });

  test("401 without a key, 404 for an unknown ad, 422 for a malformed id", async () => {
    expect((await world.h.call("GET", `/ads/v1/status/${crypto.randomUUID()}`)).status).toBe(401);
    expect((await world.h.call("GET", `/ads/v1/status/${crypto.randomUUID()}`, { key: c.adsFull })).status).toBe(404);
    expect((await world.h.call("GET", "/ads/v1/status/123", { key: c.adsFull })).status).toBe(422);
  });
});
