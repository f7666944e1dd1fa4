import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { SIM_VIDEO_FAIL } from "../../lib/ads/platform/simulator/markers";
import { describeResponse, type Ads, type ErrorEnvelope, type FieldIssue } from "../helpers/harness";
import { createAd, createAdsWorld, createImageCreative, onboardedCustomer, uploadImage, type AdsWorld, type OnboardedCustomer } from "./support/ads-world";

let world: AdsWorld;
let c: OnboardedCustomer;
let imageHash: string;
beforeAll(async () => {
  world = await createAdsWorld();
  c = await onboardedCustomer(world, "Creatives");
  imageHash = await uploadImage(world, c);
});
afterAll(async () => world.close());

const post = <T = Ads["createCreative"]>(body: unknown, key = c.adsFull) => world.h.call<T>("POST", "/ads/v1/creatives", { key, body });

async function video(path: string): Promise<{ id: string; video_id: string }> {
  const r = await world.h.call<Ads["uploadVideo"]>("POST", "/ads/v1/media/videos", { key: c.adsFull, body: { url: `https://videos.example.com/${path}` } });
  if (r.status !== 201) throw new Error(describeResponse(r));
  return r.json.data;
}

describe("POST /v1/creatives", () => {
  test("an image draft: no platform object yet", async () => {
    world.sim.clearRequests();
    const r = await post({ image_hash: imageHash, name: "Square" });
    expect(r.status, describeResponse(r)).toBe(201);
    expect(r.json.data).toMatchObject({
      id: expect.any(String),
      name: "Square",
      type: "IMAGE",
      status: "DRAFT",
      image_hash: imageHash,
      video_id: null,
      platform_creative_id: null,
    });
    expect(world.sim.requests().filter((request) => request.method === "POST")).toEqual([]);
  });

  test("the default name comes from the medium", async () => {
    const r = await post({ image_hash: imageHash });
    expect(r.json.data.name, describeResponse(r)).toBe(`Image ${imageHash.slice(0, 8)}`);
  });

  test("a video draft needs a READY video: PROCESSING is 409, READY passes, FAILED is 422", async () => {
    const clip = await video("clip.mp4");
    const early = await post<ErrorEnvelope>({ video_id: clip.video_id });
    expect(early.status, describeResponse(early)).toBe(409);
    expect(early.json.error.details).toMatchObject({ reason: "video_processing" });
    world.sim.advance(10_000);
    const ready = await post({ video_id: clip.video_id });
    expect(ready.status, describeResponse(ready)).toBe(201);
    expect(ready.json.data).toMatchObject({ type: "VIDEO", status: "DRAFT", video_id: clip.video_id, thumbnail_hash: null });

    const broken = await video(`${SIM_VIDEO_FAIL}.mp4`);
    world.sim.advance(10_000);
    const failed = await post<ErrorEnvelope<FieldIssue[]>>({ video_id: broken.video_id, thumbnail_hash: imageHash });
    expect(failed.status, describeResponse(failed)).toBe(422);
    expect(failed.json.error.details[0].field).toBe("video_id");
  });

  test("with a thumbnail a video still processing is accepted", async () => {
    const clip = await video("thumbed.mp4");
    const r = await post({ video_id: clip.video_id, thumbnail_hash: imageHash });
    expect(r.status, describeResponse(r)).toBe(201);
    expect(r.json.data).toMatchObject({ type: "VIDEO", thumbnail_hash: imageHash });
  });

  test.each([
    ["both media", () => ({ image_hash: imageHash, video_id: "123" }), ["image_hash", "video_id"]],
    ["no medium", () => ({ name: "Empty" }), ["image_hash", "video_id"]],
    ["a thumbnail with an image", () => ({ image_hash: imageHash, thumbnail_hash: imageHash }), ["thumbnail_hash"]],
    ["an image never uploaded", () => ({ image_hash: "0".repeat(32) }), ["image_hash"]],
    ["a video never uploaded", () => ({ video_id: "999999" }), ["video_id"]],
    ["an unknown thumbnail", () => ({ video_id: "999999", thumbnail_hash: "0".repeat(32) }), ["thumbnail_hash"]],
    ["an empty name", () => ({ image_hash: imageHash, name: "  " }), ["name"]],
    ["a name over 200 characters", () => ({ image_hash: imageHash, name: "x".repeat(201) }), ["name"]],
    ["copy fields (they belong to the ad)", () => ({ image_hash: imageHash, message: "Hi" }), ["json"]],
  ])("422 for %s", async (_label, body, fields) => {
    const r = await post<ErrorEnvelope<FieldIssue[]>>(body());
    expect(r.status, describeResponse(r)).toBe(422);
    expect(r.json.error.details.map((d: { field: string }) => d.field)).toEqual(fields);
  });

  test("another customer's image is unknown here", async () => {
    const other = await onboardedCustomer(world, "Creatives other");
    const r = await post({ image_hash: imageHash }, other.adsFull);
    expect(r.status, describeResponse(r)).toBe(422);
  });

  test("401 without a key, 403 with a reporting key", async () => {
    expect((await world.h.call("POST", "/ads/v1/creatives", { body: { image_hash: imageHash } })).status).toBe(401);
    expect((await post({ image_hash: imageHash }, c.adsReporting)).status).toBe(403);
  });
});

describe("GET /v1/creatives", () => {
  test("lists newest first with status filters and paging; an ad makes a draft ACTIVE with its platform id", async () => {
    const own = await onboardedCustomer(world, "Creatives list");
    world.h.clock.advance(1000);
    const draft = await createImageCreative(world, own);
    world.h.clock.advance(1000);
    const ad = await createAd(world, own);
    world.h.clock.advance(1000);
    const archived = await createImageCreative(world, own);
    await world.h.call("DELETE", `/ads/v1/creatives/${archived.id}`, { key: own.adsFull });

    const all = await world.h.call<Ads["listCreatives"]>("GET", "/ads/v1/creatives", { key: own.adsReporting });
    expect(
      all.json.data.map((x: { id: string }) => x.id),
      describeResponse(all),
    ).toEqual([archived.id, ad.creative_id, draft.id]);
    const active = await world.h.call<Ads["listCreatives"]>("GET", "/ads/v1/creatives?status=ACTIVE", { key: own.adsReporting });
    expect(active.json.data, describeResponse(active)).toEqual([
      expect.objectContaining({ id: ad.creative_id, status: "ACTIVE", platform_creative_id: ad.platform_creative_id }),
    ]);
    const drafts = await world.h.call<Ads["listCreatives"]>("GET", "/ads/v1/creatives?status=DRAFT", { key: own.adsReporting });
    expect(drafts.json.data.map((x: { id: string }) => x.id)).toEqual([draft.id]);
    const paused = await world.h.call<Ads["listCreatives"]>("GET", "/ads/v1/creatives?status=PAUSED", { key: own.adsReporting });
    expect(paused.json.data).toEqual([]);
    const page = await world.h.call<Ads["listCreatives"]>("GET", "/ads/v1/creatives?limit=1&offset=2", { key: own.adsReporting });
    expect(page.json.data.map((x: { id: string }) => x.id)).toEqual([draft.id]);
    expect((await world.h.call("GET", "/ads/v1/creatives?status=LIVE", { key: own.adsReporting })).status).toBe(422);
  });
});

describe("PATCH and DELETE /v1/creatives/{id}", () => {
  test("renames (1–200 characters, trimmed), nothing else", async () => {
    const creative = await createImageCreative(world, c);
    const r = await world.h.call<Ads["updateCreative"]>("PATCH", `/ads/v1/creatives/${creative.id}`, { key: c.adsFull, body: { name: "  Renamed  " } });
    expect(r.status, describeResponse(r)).toBe(200);
    expect(r.json.data).toMatchObject({ id: creative.id, name: "Renamed", type: "IMAGE", platform_creative_id: null });
    expect((await world.h.call("PATCH", `/ads/v1/creatives/${creative.id}`, { key: c.adsFull, body: { name: "" } })).status).toBe(422);
    expect((await world.h.call("PATCH", `/ads/v1/creatives/${creative.id}`, { key: c.adsFull, body: { name: "y".repeat(201) } })).status).toBe(422);
    expect((await world.h.call("PATCH", `/ads/v1/creatives/${creative.id}`, { key: c.adsFull, body: { name: "ok", type: "VIDEO" } })).status).toBe(422);
    expect((await world.h.call("PATCH", `/ads/v1/creatives/${creative.id}`, { key: c.adsFull, body: {} })).status).toBe(400);
  });

  test("archives here only: the platform creative stays, and the creative cannot make new ads (409)", async () => {
    const own = await onboardedCustomer(world, "Creatives archive");
    const ad = await createAd(world, own);
    world.sim.clearRequests();
    const r = await world.h.call<Ads["archiveCreative"]>("DELETE", `/ads/v1/creatives/${ad.creative_id}`, { key: own.adsFull });
    expect(r.status, describeResponse(r)).toBe(200);
    expect(r.json.data).toMatchObject({ id: ad.creative_id, status: "ARCHIVED", platform_creative_id: ad.platform_creative_id });
    expect(world.sim.requests()).toEqual([]);
    expect(world.sim.state.creatives.has(ad.platform_creative_id ?? "")).toBe(true);
    const again = await world.h.call<Ads["archiveCreative"]>("DELETE", `/ads/v1/creatives/${ad.creative_id}`, { key: own.adsFull });
    expect(again.json.data.status).toBe("ARCHIVED");
    const reuse = await world.h.call("POST", "/ads/v1/ads", { key: own.adsFull, body: { ad_set_id: ad.ad_set_id, creative_id: ad.creative_id } });
    expect(reuse.status, describeResponse(reuse)).toBe(409);
  });

  test("another customer's creative is 404; reporting keys cannot change creatives", async () => {
    const creative = await createImageCreative(world, c);
    const other = await onboardedCustomer(world, "Creatives intruder");
    expect((await world.h.call("PATCH", `/ads/v1/creatives/${creative.id}`, { key: other.adsFull, body: { name: "mine" } })).status).toBe(404);
    expect((await world.h.call("DELETE", `/ads/v1/creatives/${creative.id}`, { key: other.adsFull })).status).toBe(404);
    expect((await world.h.call("PATCH", `/ads/v1/creatives/${creative.id}`, { key: c.adsReporting, body: { name: "x" } })).status).toBe(403);
    expect((await world.h.call("DELETE", `/ads/v1/creatives/${creative.id}`, { key: c.adsReporting })).status).toBe(403);
  });
});
