import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ffmpeg from "@ffmpeg-installer/ffmpeg";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { insertCreativeDraft } from "../../lib/ads/creatives/service";
import { QUOTE_CARD, SALE_BANNER, VIDEO_PROMO } from "../../lib/ads/templates/demo";
import { resumeVideoRenders, VIDEO_RENDER_TOPIC } from "../../lib/ads/templates/video-render";
import { findCronJob } from "../../lib/cron";
import { adsVideoRenders } from "../../lib/db/schema";
import { describeResponse, type Ads, type ErrorEnvelope, type Admin, type FieldIssue, type ErrorDetail } from "../helpers/harness";
import { createAdSet, createAdsWorld, onboardedCustomer, type AdsWorld, type OnboardedCustomer } from "./support/ads-world";

/**
 * Templates over HTTP on the real runtime: the operator creates, assigns and previews; the customer lists,
 * reads, opens the public preview without a key, renders with its own values (highlight, product image from
 * a local https server) and builds an ad from the rendered creative on the Graph simulator.
 */

let world: AdsWorld;
let c: OnboardedCustomer;
let other: OnboardedCustomer;
let saleId: string;
let quoteId: string;

const body = (seed: typeof SALE_BANNER) => ({
  name: seed.name,
  description: seed.description,
  type: seed.type,
  params: seed.params,
  layouts: seed.layouts,
  highlight: seed.highlight,
});

beforeAll(async () => {
  world = await createAdsWorld();
  c = await onboardedCustomer(world, "Templates Co");
  other = await onboardedCustomer(world, "Other Co");
  const { h } = world;
  const sale = await h.admin<Admin["createLibraryAdTemplate"]>("POST", "/v1/ads/templates", { ...body(SALE_BANNER), name: `Sale ${crypto.randomUUID()}` });
  expect(sale.status, describeResponse(sale)).toBe(201);
  saleId = sale.json.data.id;
  const quote = await h.admin<Admin["createLibraryAdTemplate"]>("POST", "/v1/ads/templates", { ...body(QUOTE_CARD), name: `Quote ${crypto.randomUUID()}` });
  quoteId = quote.json.data.id;
  for (const id of [saleId, quoteId]) expect((await h.admin("PUT", `/v1/customers/${c.id}/ads/templates/${id}`)).status).toBe(200);
  expect((await h.admin("PUT", `/v1/customers/${other.id}/ads/templates/${quoteId}`)).status).toBe(200);
}, 60_000);
afterAll(async () => world.close());

async function follow(location: string) {
  const path = new URL(location).pathname;
  const r = await world.h.root.request(path);
  return { status: r.status, type: r.headers.get("content-type"), bytes: Buffer.from(await r.arrayBuffer()) };
}

describe("operator", () => {
  test("layouts are checked on save with paths; a partial update gets a new revision", async () => {
    const { h } = world;
    const broken = await h.admin<ErrorEnvelope>("POST", "/v1/ads/templates", {
      ...body(SALE_BANNER),
      layouts: { ...SALE_BANNER.layouts, "4:5": { type: "box", children: [{ type: "text", param: "nope" }] } },
    });
    expect(broken.status, describeResponse(broken)).toBe(422);
    expect(broken.json.error.details).toEqual([{ path: "layouts.4:5.children.0.param", message: "Unknown parameter nope." }]);
    const unknownStyle = await h.admin<ErrorEnvelope<ErrorDetail[]>>("POST", "/v1/ads/templates", {
      ...body(SALE_BANNER),
      layouts: { ...SALE_BANNER.layouts, "1:1": { type: "box", style: { filter: "blur(2px)" } } },
    });
    expect(unknownStyle.status, describeResponse(unknownStyle)).toBe(422);
    expect(unknownStyle.json.error.details[0].path).toBe("layouts.1:1.style");
    const missingRatio = await h.admin("POST", "/v1/ads/templates", { ...body(SALE_BANNER), layouts: { "1:1": SALE_BANNER.layouts["1:1"] } });
    expect(missingRatio.status, describeResponse(missingRatio)).toBe(400);
    const renamed = await h.admin<Admin["updateLibraryAdTemplate"]>("PATCH", `/v1/ads/templates/${quoteId}`, { description: "Quotes." });
    expect(renamed.json.data, describeResponse(renamed)).toMatchObject({ description: "Quotes.", revision: 2, status: "active" });
    expect((await h.admin("GET", `/v1/ads/templates/${crypto.randomUUID()}`)).status).toBe(404);
  });
});

describe("customer", () => {
  test("lists only active assigned templates with preview URLs; another account's or an inactive template is 404", async () => {
    const { h } = world;
    const list = await h.call<Ads["listAdTemplates"]>("GET", "/ads/v1/templates", { key: c.adsReporting });
    expect(list.status, describeResponse(list)).toBe(200);
    expect(list.json.data.map((t: { id: string }) => t.id).sort()).toEqual([saleId, quoteId].sort());
    const sale = list.json.data.find((t: { id: string }) => t.id === saleId);
    expect(sale).toMatchObject({
      type: "image",
      has_params: true,
      preview_urls: { "1:1": expect.stringContaining(`/ads/v1/templates/${saleId}/preview.png?c=${c.id}&k=`) },
    });
    if (!sale) throw new Error(describeResponse(list));
    const detail = await h.call<Ads["getAdTemplate"]>("GET", `/ads/v1/platform/templates/${saleId}`, { key: c.adsReporting });
    expect(
      detail.json.data.params.find((p: { name: string }) => p.name === "headline"),
      describeResponse(detail),
    ).toEqual({
      name: "headline",
      type: "text",
      required: true,
      label: "Headline",
      description: "Mark a word with [[…]] to highlight it.",
      min_chars: 3,
      max_chars: 60,
      example: "Spring [[Sale]] on all shoes",
      supports_highlight: true,
    });
    expect((await h.call("GET", `/ads/v1/templates/${saleId}`, { key: other.adsReporting })).status).toBe(404);
    expect((await h.call<Ads["listAdTemplates"]>("GET", "/ads/v1/templates", { key: other.adsReporting })).json.data.map((t: { id: string }) => t.id)).toEqual([
      quoteId,
    ]);
    const preview = await h.call<Ads["getAdTemplatePreview"]>("GET", `/ads/v1/templates/${saleId}/preview`, { key: c.adsReporting });
    expect(preview.json.data, describeResponse(preview)).toEqual({ template: saleId, params: {}, preview_urls: sale.preview_urls });
  });

  test("preview.png needs no key: 302 to a permanent JPEG, the same until the values change; wrong c, k or ratio → 404", async () => {
    const { h } = world;
    const { preview_urls: urls } = (await h.call<Ads["getAdTemplatePreview"]>("GET", `/ads/v1/templates/${saleId}/preview`, { key: c.adsReporting })).json.data;
    const path = (url: string) => new URL(url).pathname + new URL(url).search;
    const first = await h.call("GET", path(urls["4:5"]));
    expect(first.status, describeResponse(first)).toBe(302);
    const location = first.headers.get("location") ?? "";
    const image = await follow(location);
    expect(image.status).toBe(200);
    expect(image.type).toBe("image/jpeg");
    expect(await sharp(image.bytes).metadata()).toMatchObject({ width: 1080, height: 1350, format: "jpeg" });
    expect((await h.call("GET", path(urls["4:5"]))).headers.get("location")).toBe(location);
    const square = await h.call("GET", path(urls["1:1"]).replace("&ratio=1:1", ""));
    expect(square.status).toBe(302);
    expect(square.headers.get("location")).not.toBe(location);

    const stored = await h.admin("PUT", `/v1/customers/${c.id}/ads/templates/${saleId}/preview-values`, {
      values: { headline: "Winter [[Deals]]", price: "€ 9", brand_color: "#1d4ed8" },
    });
    expect(stored.status, describeResponse(stored)).toBe(200);
    const changed = await h.call("GET", path(urls["4:5"]));
    expect(changed.headers.get("location")).not.toBe(location);
    expect((await h.call<Ads["getAdTemplatePreview"]>("GET", `/ads/v1/templates/${saleId}/preview`, { key: c.adsReporting })).json.data.params).toEqual({
      headline: "Winter [[Deals]]",
      price: "€ 9",
      brand_color: "#1d4ed8",
    });
    const badValues = await h.admin("PUT", `/v1/customers/${c.id}/ads/templates/${saleId}/preview-values`, { values: { brand_color: "blue" } });
    expect(badValues.status, describeResponse(badValues)).toBe(422);

    const url = new URL(urls["1:1"]);
    const variants = [
      url.pathname + url.search.replace(/k=[^&]+/, "k=AAAA"),
      url.pathname + url.search.replace(/c=[^&]+/, `c=${other.id}`),
      url.pathname + url.search.replace("ratio=1:1", "ratio=2:1"),
      url.pathname + url.search.replace(/&k=[^&]+/, ""),
      url.pathname.replace(saleId, quoteId) + url.search,
    ];
    for (const variant of variants) {
      const r = await h.call<ErrorEnvelope>("GET", variant);
      expect(r.status, `${variant}: ${describeResponse(r)}`).toBe(404);
      expect(r.json.error.code).toBe("not_found");
    }
  });

  test("render with a highlight and a product image, then an ad from the rendered creative: one placement-customised creative", async () => {
    const { h, sim, images } = world;
    const rendered = await h.call<Ads["renderAdTemplate"]>("POST", "/ads/v1/templates/render", {
      key: c.adsFull,
      headers: { "Idempotency-Key": "render-1" },
      body: {
        template: saleId,
        params: { headline: "Autumn [[Sale]] today", price: "€ 19.90", brand_color: "#7c3aed", product_image: images.url("/portrait.png") },
        name: "Autumn",
      },
    });
    expect(rendered.status, describeResponse(rendered)).toBe(200);
    expect(rendered.json.data).toMatchObject({ id: expect.any(String), template: saleId, type: "IMAGE" });
    const sizes: Record<string, string> = {};
    if (rendered.json.data.type !== "IMAGE") throw new Error(describeResponse(rendered));
    for (const [ratio, url] of Object.entries(rendered.json.data.formats)) {
      const file = await follow(url);
      const meta = await sharp(file.bytes).metadata();
      sizes[ratio] = `${meta.width}x${meta.height}`;
    }
    expect(sizes).toEqual({ "1:1": "1080x1080", "4:5": "1080x1350", "9:16": "1080x1920" });
    const uploads = sim.state.images.size;
    const replay = await h.call<Ads["renderAdTemplate"]>("POST", "/ads/v1/templates/render", {
      key: c.adsFull,
      headers: { "Idempotency-Key": "render-1" },
      body: {
        template: saleId,
        params: { headline: "Autumn [[Sale]] today", price: "€ 19.90", brand_color: "#7c3aed", product_image: images.url("/portrait.png") },
        name: "Autumn",
      },
    });
    expect(replay.json.data.id).toBe(rendered.json.data.id);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(sim.state.images.size).toBe(uploads);

    const creatives = await h.call<Ads["listCreatives"]>("GET", "/ads/v1/creatives", { key: c.adsReporting });
    expect(creatives.json.data.find((x: { id: string }) => x.id === rendered.json.data.id)).toMatchObject({
      name: "Autumn",
      type: "IMAGE",
      status: "DRAFT",
      platform_creative_id: null,
    });

    const adSet = await createAdSet(world, c);
    const ad = await h.call<Ads["createAd"]>("POST", "/ads/v1/ads", {
      key: c.adsFull,
      body: { ad_set_id: adSet.id, creative_id: rendered.json.data.id, link: "https://shop.example.com/autumn", headline: "Autumn sale" },
    });
    expect(ad.status, describeResponse(ad)).toBe(201);
    const creative = sim.state.creatives.get(ad.json.data.platform_creative_id ?? "");
    const spec = creative?.assetFeedSpec;
    expect(spec?.optimization_type).toBe("PLACEMENT");
    expect(new Set(spec?.images?.map((i) => i.hash)).size).toBe(3);
    expect(spec?.asset_customization_rules?.length).toBeGreaterThan(1);
  }, 60_000);

  test("render refuses bad values with 422 naming the parameter, and templates that are not active or assigned", async () => {
    const { h, images } = world;
    const render = <T = Ads["renderAdTemplate"]>(b: Record<string, unknown>) => h.call<T>("POST", "/ads/v1/templates/render", { key: c.adsFull, body: b });
    const cases: [Record<string, unknown>, string][] = [
      [{ template: saleId, params: { headline: "Hi", price: "1", brand_color: "#000000" } }, "params.headline"],
      [{ template: saleId, params: { headline: "Long enough", price: "1", brand_color: "navy" } }, "params.brand_color"],
      [{ template: saleId, params: { headline: "Long enough", price: "1", brand_color: "#000000", extra: "x" } }, "params.extra"],
      [
        { template: saleId, params: { headline: "Long enough", price: "1", brand_color: "#000000", product_image: images.url("/not-an-image.jpg") } },
        "params.product_image",
      ],
      [
        { template: saleId, params: { headline: "Long enough", price: "1", brand_color: "#000000", product_image: "http://example.com/a.png" } },
        "params.product_image",
      ],
      [{ template: crypto.randomUUID(), params: {} }, "template"],
    ];
    for (const [b, field] of cases) {
      const r = await render<ErrorEnvelope<FieldIssue[]>>(b);
      expect(r.status, `${field}: ${describeResponse(r)}`).toBe(422);
      expect(r.json.error.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    expect((await render({ template: saleId })).status).toBe(400);
    expect((await h.call("POST", "/ads/v1/templates/render", { key: c.adsReporting, body: { template: saleId, params: {} } })).status).toBe(403);
    // Brackets stay as typed where highlights are not supported (the price), and count as characters there.
    const typed = await render({ template: saleId, params: { headline: "Plain headline", price: "[[1]]", brand_color: "#000000" } });
    expect(typed.status, describeResponse(typed)).toBe(200);

    const deactivated = await h.admin("PATCH", `/v1/ads/templates/${quoteId}`, { status: "inactive" });
    expect(deactivated.status).toBe(200);
    expect((await h.call("GET", `/ads/v1/templates/${quoteId}`, { key: c.adsReporting })).status).toBe(404);
    expect((await render({ template: quoteId, params: { quote: "A quote long enough", author: "me" } })).status).toBe(422);
    await h.admin("PATCH", `/v1/ads/templates/${quoteId}`, { status: "active" });
    expect((await h.admin("DELETE", `/v1/customers/${other.id}/ads/templates/${quoteId}`)).status).toBe(204);
    expect((await h.call("GET", `/ads/v1/templates/${quoteId}`, { key: other.adsReporting })).status).toBe(404);
  }, 60_000);
});

describe("video templates", () => {
  let videoId: string;
  const dir = mkdtempSync(join(tmpdir(), "video-render-test-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const probe = (bytes: Buffer) => {
    const file = join(dir, `${crypto.randomUUID()}.mp4`);
    writeFileSync(file, bytes);
    return spawnSync(ffmpeg.path, ["-hide_banner", "-i", file], { encoding: "utf8" }).stderr;
  };
  const values = (background: string) => ({ headline: "Big [[news]] today", subline: "From Friday", brand_color: "#0f766e", background_video: background });

  beforeAll(async () => {
    const { h, images } = world;
    const created = await h.admin<Admin["createLibraryAdTemplate"]>("POST", "/v1/ads/templates", {
      ...body(VIDEO_PROMO),
      name: `Video ${crypto.randomUUID()}`,
    });
    expect(created.status, describeResponse(created)).toBe(201);
    videoId = created.json.data.id;
    expect((await h.admin("PUT", `/v1/customers/${c.id}/ads/templates/${videoId}`)).status).toBe(200);
    const background = join(dir, "bg.mp4");
    const made = spawnSync(
      ffmpeg.path,
      [
        "-hide_banner",
        "-loglevel",
        "error",
        "-y",
        "-f",
        "lavfi",
        "-i",
        "testsrc=size=320x180:rate=25:duration=1",
        "-f",
        "lavfi",
        "-i",
        "sine=frequency=440:duration=1",
        "-c:v",
        "libx264",
        "-pix_fmt",
        "yuv420p",
        "-c:a",
        "aac",
        "-shortest",
        background,
      ],
      { encoding: "utf8" },
    );
    expect(made.status, made.stderr).toBe(0);
    images.files.set("/bg.mp4", readFileSync(background));
  }, 60_000);

  test("202 PROCESSING, 409 for an ad while it runs, READY with three H.264 formats, then an ad with one placement-customised video creative", async () => {
    const { h, sim, images } = world;
    const release = images.hold("/bg.mp4");
    const started = await h.call<Ads["renderAdTemplate"]>("POST", "/ads/v1/templates/render", {
      key: c.adsFull,
      headers: { "Idempotency-Key": "video-1" },
      body: { template: videoId, params: values(images.url("/bg.mp4")), name: "Promo" },
    });
    expect(started.status, describeResponse(started)).toBe(202);
    expect(started.json.data).toEqual({ id: expect.any(String), template: videoId, type: "VIDEO", status: "PROCESSING" });
    const id = started.json.data.id as string;
    const replay = await h.call<Ads["renderAdTemplate"]>("POST", "/ads/v1/templates/render", {
      key: c.adsFull,
      headers: { "Idempotency-Key": "video-1" },
      body: { template: videoId, params: values(images.url("/bg.mp4")), name: "Promo" },
    });
    expect(replay.status).toBe(202);
    expect(replay.json.data.id).toBe(id);

    const processing = await h.call<Ads["getVideoRender"]>("GET", `/ads/v1/templates/render/${id}`, { key: c.adsReporting });
    expect(processing.json.data, describeResponse(processing)).toMatchObject({
      id,
      template: videoId,
      status: "PROCESSING",
      video_id: null,
      output_url: null,
      formats: null,
      reason: null,
    });
    const adSet = await createAdSet(world, c);
    const early = await h.call<ErrorEnvelope>("POST", "/ads/v1/ads", {
      key: c.adsFull,
      body: { ad_set_id: adSet.id, creative_id: id, link: "https://shop.example.com/video" },
    });
    expect(early.status, describeResponse(early)).toBe(409);
    expect(early.json.error.details).toMatchObject({ reason: "render_processing" });
    expect((await h.call("GET", `/ads/v1/platform/templates/render/${id}`, { key: other.adsReporting })).status).toBe(404);

    release();
    await h.deps.queue.idle();
    const ready = await h.call<Ads["getVideoRender"]>("GET", `/ads/v1/platform/templates/render/${id}`, { key: c.adsReporting });
    expect(ready.json.data, describeResponse(ready)).toMatchObject({ status: "READY", reason: null, platform_creative_id: null });
    const { formats } = ready.json.data as { formats: Record<string, { video_id: string; output_url: string }> };
    expect(ready.json.data.video_id).toBe(formats["1:1"]?.video_id);
    expect(new Set(Object.values(formats).map((f) => f.video_id)).size).toBe(3);
    const sizes: Record<string, string> = {};
    for (const [ratio, format] of Object.entries(formats)) {
      const file = await follow(format.output_url);
      expect(file.type).toBe("video/mp4");
      const info = probe(file.bytes);
      expect(info).toMatch(/Audio: aac/);
      sizes[ratio] = /Video: h264 .*?(\d{3,4}x\d{3,4})/.exec(info)?.[1] ?? info;
    }
    expect(sizes).toEqual({ "1:1": "1080x1080", "4:5": "1080x1350", "9:16": "1080x1920" });
    expect(sim.state.videos.size).toBeGreaterThanOrEqual(3);

    // The platform processes the three videos before an ad may use them.
    sim.advance(10_000);
    const ad = await h.call<Ads["createAd"]>("POST", "/ads/v1/ads", {
      key: c.adsFull,
      body: { ad_set_id: adSet.id, creative_id: id, link: "https://shop.example.com/video", headline: "Promo" },
    });
    expect(ad.status, describeResponse(ad)).toBe(201);
    const spec = sim.state.creatives.get(ad.json.data.platform_creative_id ?? "")?.assetFeedSpec;
    expect(spec?.optimization_type).toBe("PLACEMENT");
    expect(spec?.videos?.map((v) => v.video_id).sort()).toEqual(
      Object.values(formats)
        .map((f) => f.video_id)
        .sort(),
    );
    expect(spec?.asset_customization_rules?.length).toBeGreaterThan(1);
    const after = await h.call<Ads["getVideoRender"]>("GET", `/ads/v1/templates/render/${id}`, { key: c.adsReporting });
    expect(after.json.data.platform_creative_id).toBe(ad.json.data.platform_creative_id);
  }, 120_000);

  test("a background that is not a video ends FAILED with a reason naming the parameter; an ad from it is 422", async () => {
    const { h, images } = world;
    const started = await h.call<Ads["renderAdTemplate"]>("POST", "/ads/v1/templates/render", {
      key: c.adsFull,
      body: { template: videoId, params: values(images.url("/not-an-image.jpg")) },
    });
    expect(started.status, describeResponse(started)).toBe(202);
    await h.deps.queue.idle();
    const failed = await h.call<Ads["getVideoRender"]>("GET", `/ads/v1/templates/render/${started.json.data.id}`, { key: c.adsReporting });
    expect(failed.json.data, describeResponse(failed)).toMatchObject({
      status: "FAILED",
      reason: expect.stringContaining("params.background_video"),
      formats: null,
    });
    const adSet = await createAdSet(world, c);
    const ad = await h.call<ErrorEnvelope<FieldIssue[]>>("POST", "/ads/v1/ads", {
      key: c.adsFull,
      body: { ad_set_id: adSet.id, creative_id: started.json.data.id, link: "https://shop.example.com/video" },
    });
    expect(ad.status, describeResponse(ad)).toBe(422);
    expect(ad.json.error.details[0]).toMatchObject({ field: "creative_id" });

    // Values are checked before anything is queued: a missing background or a bad colour is a 422 now.
    const missing = await h.call<ErrorEnvelope<FieldIssue[]>>("POST", "/ads/v1/templates/render", {
      key: c.adsFull,
      body: { template: videoId, params: { headline: "Big news", brand_color: "#000000" } },
    });
    expect(missing.status, describeResponse(missing)).toBe(422);
    expect(missing.json.error.details.map((d: { field: string }) => d.field)).toEqual(["params.background_video"]);
  }, 60_000);

  test("a second delivery of the job's message composes nothing again; a render whose message was lost is published again by the sweep", async () => {
    const { h, sim, images } = world;
    images.files.set("/bg-2.mp4", images.files.get("/bg.mp4") ?? Buffer.alloc(0));
    const release = images.hold("/bg-2.mp4");
    const started = await h.call<Ads["renderAdTemplate"]>("POST", "/ads/v1/templates/render", {
      key: c.adsFull,
      body: { template: videoId, params: values(images.url("/bg-2.mp4")) },
    });
    expect(started.status, describeResponse(started)).toBe(202);
    const id = started.json.data.id as string;
    const videosBefore = sim.state.videos.size;
    // The job holds the render (blocked on the download); the same message again finds it leased.
    await h.deps.queue.publish(VIDEO_RENDER_TOPIC, { creative_id: id });
    const sweep = findCronJob("ads-video-renders");
    expect(await sweep?.run(h.cronDeps)).toEqual({ republished: 0 });
    release();
    await h.deps.queue.idle();
    expect((await h.call<Ads["getVideoRender"]>("GET", `/ads/v1/templates/render/${id}`, { key: c.adsReporting })).json.data.status).toBe("READY");
    expect(sim.state.videos.size - videosBefore).toBe(3);

    // A render stored without its queue message (a crash between the two): the sweep publishes it after 2 minutes.
    const adsDeps = h.adsDeps;
    const lost = await insertCreativeDraft(h.db, c.id, { name: "Lost", type: "VIDEO", templateId: videoId }, h.clock.now());
    await h.db.insert(adsVideoRenders).values({
      creativeId: lost.id,
      customerId: c.id,
      templateId: videoId,
      status: "PROCESSING",
      params: values(images.url("/bg.mp4")),
      createdAt: h.clock.now(),
      updatedAt: h.clock.now(),
    });
    expect(await resumeVideoRenders(adsDeps)).toBe(0);
    h.clock.advance(3 * 60_000);
    expect(await sweep?.run(h.cronDeps)).toEqual({ republished: 1 });
    await h.deps.queue.idle();
    expect((await h.call<Ads["getVideoRender"]>("GET", `/ads/v1/templates/render/${lost.id}`, { key: c.adsReporting })).json.data.status).toBe("READY");
  }, 120_000);

  test("the public preview of a video template needs no background: the overlay on a dark backdrop", async () => {
    const { h } = world;
    const { preview_urls: urls } = (await h.call<Ads["getAdTemplatePreview"]>("GET", `/ads/v1/templates/${videoId}/preview`, { key: c.adsReporting })).json
      .data;
    const url = new URL(urls["9:16"]);
    const r = await h.call("GET", url.pathname + url.search);
    expect(r.status, describeResponse(r)).toBe(302);
    const image = await follow(r.headers.get("location") ?? "");
    expect(await sharp(image.bytes).metadata()).toMatchObject({ width: 1080, height: 1920, format: "jpeg" });
    const corner = await sharp(image.bytes).extract({ left: 10, top: 10, width: 1, height: 1 }).raw().toBuffer();
    expect(Math.max(...corner)).toBeLessThan(64);
  }, 60_000);
});
