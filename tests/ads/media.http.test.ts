import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { SIM_VIDEO_FAIL } from "../../lib/ads/platform/simulator/markers";
import { createHarness, describeResponse, type Ads, type ErrorEnvelope, type FieldIssue } from "../helpers/harness";
import { createAdsWorld, graphControls, onboardedCustomer, type AdsWorld, type OnboardedCustomer } from "./support/ads-world";

let world: AdsWorld;
let c: OnboardedCustomer;
beforeAll(async () => {
  world = await createAdsWorld();
  c = await onboardedCustomer(world, "Media");
});
afterAll(async () => world.close());

const upload = <T = Ads["uploadImage"]>(url: string, key = c.adsFull) => world.h.call<T>("POST", "/ads/v1/media/images", { key, body: { url } });

describe("POST /v1/media/images", () => {
  test.each([
    ["JPG 1:1", "/square.jpg", 1080, 1080],
    ["PNG 4:5", "/portrait.png", 1080, 1350],
    ["WebP 9:16", "/story.webp", 1080, 1920],
    ["JPG 1.91:1", "/landscape.jpg", 1910, 1000],
    ["PNG within the ±3 % tolerance of 1:1", "/nearly-square.png", 1000, 1020],
  ])("%s: fetched, forwarded unchanged, answered with id, hash and url", async (_label, path, width, height) => {
    world.sim.clearRequests();
    const r = await upload(world.images.url(path));
    expect(r.status, describeResponse(r)).toBe(201);
    expect(Object.keys(r.json.data).sort()).toEqual(["id", "image_hash", "url"]);
    const served = world.images.files.get(path) as Buffer;
    // The simulator hashes what it received (MD5 of the bytes, as Graph does): same hash, same bytes.
    expect(r.json.data.image_hash).toBe(createHash("md5").update(served).digest("hex"));
    const stored = world.sim.state.images.get(world.sim.state.imageKey(c.adAccountId, r.json.data.image_hash));
    expect(stored?.bytes.equals(served)).toBe(true);
    expect([stored?.width, stored?.height]).toEqual([width, height]);
    const sent = world.sim.requests().find((request) => request.path.endsWith("/adimages"));
    expect(sent?.form.bytes).toBe(served.toString("base64"));
  });

  test("the same file twice answers the same record", async () => {
    const first = await upload(world.images.url("/square-2.jpg"));
    const second = await upload(world.images.url("/square-2.jpg"));
    expect(second.json.data, describeResponse(second)).toEqual(first.json.data);
  });

  test.each([
    ["http instead of https", () => world.images.url("/square.jpg").replace("https:", "http:"), "https"],
    ["not a URL", () => "square.jpg", "https"],
    ["a private address", () => "https://10.1.2.3/a.jpg", "public"],
    ["a link-local address", () => "https://169.254.169.254/latest/meta-data", "public"],
    ["an IPv4-mapped IPv6 private address", () => "https://[::ffff:192.168.0.1]/a.jpg", "public"],
    ["a redirect", () => world.images.url("/redirect.jpg"), "redirect"],
    ["a 404", () => world.images.url("/missing.jpg"), "404"],
    ["a file that is not an image", () => world.images.url("/not-an-image.jpg"), "JPG, PNG or WebP"],
    ["a GIF", () => world.images.url("/anim.gif"), "JPG, PNG or WebP"],
    ["a ratio outside the allowed ones", () => world.images.url("/odd-ratio.jpg"), "1000×700"],
    ["a file over 30 MB", () => world.images.url("/huge.jpg"), "30 MB"],
  ])("422 for %s, with the problem on `url`", async (_label, url, issue) => {
    world.sim.clearRequests();
    const r = await upload<ErrorEnvelope>(url());
    expect(r.status, describeResponse(r)).toBe(422);
    expect(r.json.error.code).toBe("validation_error");
    expect(r.json.error.details).toEqual([{ field: "url", issue: expect.stringContaining(issue) }]);
    expect(
      world.sim.requests().filter((request) => request.path.endsWith("/adimages")),
      "nothing went upstream",
    ).toEqual([]);
  });

  test("400 without a url; 401 without a key; 403 with a reporting key", async () => {
    const missing = await world.h.call("POST", "/ads/v1/media/images", { key: c.adsFull, body: {} });
    expect(missing.status, describeResponse(missing)).toBe(400);
    expect((await world.h.call("POST", "/ads/v1/media/images", { body: { url: world.images.url("/square.jpg") } })).status).toBe(401);
    const reporting = await upload(world.images.url("/square.jpg"), c.adsReporting);
    expect(reporting.status, describeResponse(reporting)).toBe(403);
  });

  test("a customer without onboarding gets 422 with details.missing", async () => {
    const bare = await world.h.customer("Media bare");
    const r = await upload<ErrorEnvelope>(world.images.url("/square.jpg"), bare.adsFull);
    expect(r.status, describeResponse(r)).toBe(422);
    expect(r.json.error.details).toEqual({ missing: ["access_token", "app_secret", "ad_account_id"] });
  });

  test("a production-like setup (no loopback allowance) refuses the local server as an internal target", async () => {
    const strict = await createHarness({ env: { OUTBOUND_TRUSTED_CA: world.images.ca } });
    try {
      const other = await onboardedCustomer({ h: strict, sim: graphControls(strict) }, "Strict");
      const r = await strict.call<ErrorEnvelope<FieldIssue[]>>("POST", "/ads/v1/media/images", {
        key: other.adsFull,
        body: { url: world.images.url("/square.jpg") },
      });
      expect(r.status, describeResponse(r)).toBe(422);
      expect(r.json.error.details[0].issue).toContain("public");
    } finally {
      await strict.close();
    }
  });
});

describe("GET /v1/media/images", () => {
  test("lists live from the ad account, filters by hash, and suffices with a reporting key", async () => {
    const hash = (await upload(world.images.url("/square-3.jpg"))).json.data.image_hash as string;
    const all = await world.h.call<Ads["listImages"]>("GET", "/ads/v1/media/images", { key: c.adsReporting });
    expect(all.status, describeResponse(all)).toBe(200);
    expect(all.json.data.map((image: { image_hash: string }) => image.image_hash)).toContain(hash);
    const one = await world.h.call<Ads["listImages"]>("GET", `/ads/v1/media/images?hash=${hash}`, { key: c.adsReporting });
    expect(one.json.data, describeResponse(one)).toEqual([
      {
        image_hash: hash,
        url: expect.any(String),
        width: 1080,
        height: 1080,
        name: expect.any(String),
        created_time: expect.stringMatching(/[+-]\d{2}:\d{2}$/),
      },
    ]);
    // Live: an image put into the ad account behind our back shows up too.
    const original = world.sim.state.images.get(world.sim.state.imageKey(c.adAccountId, hash));
    if (!original) throw new Error("uploaded image missing in the simulator");
    world.sim.state.images.set(world.sim.state.imageKey(c.adAccountId, "f".repeat(32)), { ...original, hash: "f".repeat(32) });
    const live = await world.h.call<Ads["listImages"]>("GET", `/ads/v1/media/images?hash=${"f".repeat(32)}`, { key: c.adsReporting });
    expect(live.json.data).toHaveLength(1);
    const none = await world.h.call<Ads["listImages"]>("GET", "/ads/v1/media/images?hash=0000", { key: c.adsReporting });
    expect(none.json.data).toEqual([]);
  });

  test("401 without a key", async () => {
    expect((await world.h.call("GET", "/ads/v1/media/images")).status).toBe(401);
  });
});

describe("videos", () => {
  const create = <T = Ads["uploadVideo"]>(url: string, key = c.adsFull) => world.h.call<T>("POST", "/ads/v1/media/videos", { key, body: { url } });

  test("POST answers PROCESSING; GET turns READY with processed_at once the platform is done", async () => {
    const r = await create("https://videos.example.com/summer-15s.mp4?signature=abc");
    expect(r.status, describeResponse(r)).toBe(201);
    expect(r.json.data).toMatchObject({ status: "PROCESSING", video_id: expect.stringMatching(/^\d+$/), processed_at: null, title: "summer-15s.mp4" });
    const id = r.json.data.id as string;
    const still = await world.h.call<Ads["getVideo"]>("GET", `/ads/v1/media/videos/${id}`, { key: c.adsReporting });
    expect(still.json.data, describeResponse(still)).toMatchObject({ status: "PROCESSING", processed_at: null });
    world.sim.advance(10_000);
    const ready = await world.h.call<Ads["getVideo"]>("GET", `/ads/v1/media/videos/${id}`, { key: c.adsReporting });
    expect(ready.json.data, describeResponse(ready)).toMatchObject({ id, status: "READY", processed_at: expect.any(String) });
    // Final states are answered from our record: no further platform call.
    world.sim.clearRequests();
    const again = await world.h.call<Ads["getVideo"]>("GET", `/ads/v1/media/videos/${id}`, { key: c.adsReporting });
    expect(again.json.data).toEqual(ready.json.data);
    expect(world.sim.requests()).toEqual([]);
  });

  test("a video the platform cannot process ends FAILED", async () => {
    const r = await create(`https://videos.example.com/${SIM_VIDEO_FAIL}.mp4`);
    world.sim.advance(10_000);
    const failed = await world.h.call<Ads["getVideo"]>("GET", `/ads/v1/media/videos/${r.json.data.id}`, { key: c.adsFull });
    expect(failed.json.data, describeResponse(failed)).toMatchObject({ status: "FAILED", processed_at: expect.any(String) });
  });

  test("the list is live, with our id and the platform's status", async () => {
    const r = await create("https://videos.example.com/listed.mp4");
    const list = await world.h.call<Ads["listVideos"]>("GET", "/ads/v1/media/videos", { key: c.adsReporting });
    expect(list.status, describeResponse(list)).toBe(200);
    const item = list.json.data.find((video: { video_id: string }) => video.video_id === r.json.data.video_id);
    expect(item).toMatchObject({
      id: r.json.data.id,
      title: "listed.mp4",
      status: expect.stringMatching(/^(PROCESSING|READY)$/),
      length: expect.any(Number),
      created_time: expect.any(String),
    });
  });

  test.each([
    ["http", "http://videos.example.com/a.mp4"],
    ["credentials in the URL", "https://user:pass@videos.example.com/a.mp4"],
    ["a link-local address", "https://169.254.169.254/a.mp4"],
    ["a private IP", "https://192.168.1.20/a.mp4"],
  ])("422 for %s", async (_label, url) => {
    const r = await create<ErrorEnvelope<FieldIssue[]>>(url);
    expect(r.status, describeResponse(r)).toBe(422);
    expect(r.json.error.details[0].field).toBe("url");
  });

  test("another customer's video is 404; a malformed id is 422; reporting keys cannot create", async () => {
    const r = await create("https://videos.example.com/private.mp4");
    const other = await onboardedCustomer(world, "Media other");
    expect((await world.h.call("GET", `/ads/v1/media/videos/${r.json.data.id}`, { key: other.adsFull })).status).toBe(404);
    expect((await world.h.call("GET", "/ads/v1/media/videos/not-a-uuid", { key: c.adsFull })).status).toBe(422);
    expect((await create("https://videos.example.com/a.mp4", c.adsReporting)).status).toBe(403);
  });
});
