import { createHash, createHmac } from "node:crypto";
import fc from "fast-check";
import sharp from "sharp";
import { afterAll, beforeAll, beforeEach, describe, expect, it, test } from "vitest";
import { ManualClock } from "../../lib/base/clock";
import { createGraphClient, usagePercent, type GraphClientOptions, type GraphSession } from "../../lib/ads/platform/client";
import { PlatformError, describePlatformError } from "../../lib/ads/platform/errors";
import { encodeGraphParams } from "../../lib/ads/platform/graph-params";
import { buildPlacementCreative } from "../../lib/ads/platform/placement-creative";
import { SIM_DISAPPROVE, SIM_VIDEO_FAIL } from "../../lib/ads/platform/simulator/markers";
import { startGraphSimulator, type RunningGraphSimulator } from "../../lib/ads/platform/simulator/server";
import type { AdSetCreateParams } from "../../lib/ads/platform/types";

const APP_SECRET = "sim-app-secret-7f3a9c1e5b";
const TOKEN = "EAAsimTOKENc0ffee1234567890abcdef";
const ACCOUNT = "act_4242424242";
const OTHER_ACCOUNT = "act_5151515151";
const PAGE = "100200300400";
const CAMPAIGN = "120200000000000001";
const OTHER_CAMPAIGN = "120200000000000002";
const REVIEW_MS = 60_000;
const VIDEO_MS = 10_000;

let running: RunningGraphSimulator;
const clock = new ManualClock("2026-03-02T09:00:00.000Z");
let sleeps: number[] = [];

/** The client's clock: it moves only when the client sleeps, so waits computed from it are exact under load. */
let clockMs = Date.UTC(2026, 0, 1);

function client(options: Partial<GraphClientOptions> = {}) {
  return createGraphClient({
    baseUrl: running.graphUrl,
    now: () => clockMs,
    sleep: async (ms) => {
      sleeps.push(ms);
      clockMs += ms;
    },
    random: () => 0.5,
    ...options,
  });
}

function session(options: Partial<GraphClientOptions> = {}, credentials = { accessToken: TOKEN, appSecret: APP_SECRET }): GraphSession {
  return client(options).connect(credentials);
}

/** Resolves with the PlatformError a call threw; a call that succeeds fails the test and shows its result. */
async function platformError(call: Promise<unknown>): Promise<PlatformError> {
  let outcome: unknown;
  try {
    outcome = await call;
  } catch (error) {
    if (error instanceof PlatformError) return error;
    throw error;
  }
  throw new Error(`expected a PlatformError, got ${JSON.stringify(outcome)}`);
}

const show = (value: unknown) => JSON.stringify(value, null, 2);

/**
 * A session whose answers are the simulator's with `fields` left out (of the object, or of each listed
 * item), as Graph leaves out a field it has no value for.
 */
function sessionWithout(fields: string[]): GraphSession {
  const strip = (value: Record<string, unknown>) => Object.fromEntries(Object.entries(value).filter(([name]) => !fields.includes(name)));
  return session({
    fetch: async (url, init) => {
      const answer = (await (await fetch(url, init)).json()) as Record<string, unknown>;
      const body = Array.isArray(answer.data) ? { ...answer, data: (answer.data as Record<string, unknown>[]).map(strip) } : strip(answer);
      return new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });
    },
  });
}

async function png(width: number, height: number, color: string): Promise<Uint8Array> {
  return new Uint8Array(
    await sharp({ create: { width, height, channels: 3, background: color } })
      .png()
      .toBuffer(),
  );
}

function adSetParams(overrides: Partial<AdSetCreateParams> = {}): AdSetCreateParams {
  return {
    name: "Spring | DE | 2026-03",
    campaign_id: CAMPAIGN,
    status: "PAUSED",
    billing_event: "IMPRESSIONS",
    optimization_goal: "LINK_CLICKS",
    daily_budget: 2500,
    targeting: {
      geo_locations: { countries: ["CH"] },
      age_min: 25,
      age_max: 55,
      targeting_automation: { advantage_audience: 0 },
    },
    ...overrides,
  };
}

beforeAll(async () => {
  running = await startGraphSimulator({
    port: 0,
    clock,
    reviewDelayMs: REVIEW_MS,
    videoProcessingMs: VIDEO_MS,
    apps: [{ appSecret: APP_SECRET, accessTokens: [TOKEN] }],
    adAccounts: [
      { id: ACCOUNT, name: "Bäckerei Demo", pageIds: [PAGE], campaigns: [{ id: CAMPAIGN, name: "Target spring" }] },
      { id: OTHER_ACCOUNT, campaigns: [{ id: OTHER_CAMPAIGN }] },
    ],
    cityCountries: { "2618080": "AT" },
  });
});

afterAll(async () => {
  await running.close();
});

beforeEach(() => {
  running.simulator.controls.reset();
  sleeps = [];
});

describe("credentials on the wire", () => {
  it("sends access_token and a hex HMAC-SHA256 appsecret_proof on every call, GET and POST", async () => {
    const graph = session();
    const owner = await graph.verifyToken();
    expect(owner.id).toMatch(/^\d+$/);
    await graph.createVideo(ACCOUNT, "https://cdn.example.test/a.mp4");

    const expectedProof = createHmac("sha256", APP_SECRET).update(TOKEN).digest("hex");
    const requests = running.simulator.controls.requests();
    expect(requests, show(requests)).toHaveLength(2);
    const [get, post] = requests;
    expect(get?.method).toBe("GET");
    expect(get?.query.appsecret_proof).toBe(expectedProof);
    expect(get?.query.access_token).toBe(TOKEN);
    expect(post?.method).toBe("POST");
    expect(post?.form.appsecret_proof).toBe(expectedProof);
    expect(post?.form.access_token).toBe(TOKEN);
    expect(post?.form.file_url).toBe("https://cdn.example.test/a.mp4");
  });

  it("reads the ad account", async () => {
    const view = await session().getAdAccount(ACCOUNT);
    expect(view).toMatchObject({ id: ACCOUNT, account_id: "4242424242", name: "Bäckerei Demo", account_status: 1, currency: "EUR" });
  });

  it("JSON-encodes nested objects per form field, like the official SDKs", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1 }), fc.jsonValue()), (record) => {
        const encoded = new URLSearchParams(encodeGraphParams(record).toString());
        for (const [key, value] of Object.entries(record)) {
          const field = encoded.get(key);
          if (value !== null && typeof value === "object") expect(JSON.parse(field ?? "")).toEqual(JSON.parse(JSON.stringify(value)));
          else expect(field).toBe(value === null ? "null" : String(value));
        }
      }),
    );
  });
});

describe("media", () => {
  it("uploads image bytes and gets Graph's hash (MD5 of the file), then lists it by hash", async () => {
    const graph = session();
    const bytes = await png(120, 150, "#c0ffee");
    const uploaded = await graph.uploadImage(ACCOUNT, bytes);
    expect(uploaded.hash).toBe(createHash("md5").update(bytes).digest("hex"));
    expect(uploaded.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);

    const upload = running.simulator.controls.requests().find((r) => r.path.endsWith("/adimages"));
    expect(upload?.form.bytes).toBe(Buffer.from(bytes).toString("base64"));

    await graph.uploadImage(ACCOUNT, await png(10, 10, "#000000"));
    const listed = await graph.listImages(ACCOUNT, { hashes: [uploaded.hash] });
    expect(listed, show(listed)).toHaveLength(1);
    expect(listed[0]).toMatchObject({ hash: uploaded.hash, width: 120, height: 150 });
    expect(listed[0]?.created_time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+0000$/);
    expect((await graph.listImages(ACCOUNT)).length).toBe(2);
  });

  it("follows paging until the listing ends", async () => {
    const graph = session();
    for (let i = 0; i < 3; i++) await graph.createVideo(ACCOUNT, `https://cdn.example.test/${i}.mp4`);
    running.simulator.controls.clearRequests();
    // The client asks for 100 per page; three pages of one prove it follows the cursor.
    const videos = await createGraphClient({ baseUrl: running.graphUrl, fetch: (url, init) => fetch(url.replace("limit=100", "limit=1"), init) })
      .connect({ accessToken: TOKEN, appSecret: APP_SECRET })
      .listVideos(ACCOUNT);
    expect(videos.map((v) => v.id)).toHaveLength(3);
    expect(new Set(videos.map((v) => v.id)).size).toBe(3);
    expect(running.simulator.controls.requests()).toHaveLength(3);
  });

  it("reports a video as processing, then ready", async () => {
    const graph = session();
    const { id } = await graph.createVideo(ACCOUNT, "https://cdn.example.test/spring.mp4", { title: "Spring" });
    expect((await graph.getVideo(id)).status.video_status).toBe("processing");
    running.simulator.controls.advance(VIDEO_MS);
    const ready = await graph.getVideo(id);
    expect(ready.status.video_status, show(ready)).toBe("ready");
    expect(ready.title).toBe("Spring");
    expect(ready.length).toBeGreaterThan(0);
    const listed = await graph.listVideos(ACCOUNT);
    expect(listed.map((v) => v.id)).toEqual([id]);
  });

  it("reads a video and lists videos and images whose created_time Graph left out, as null", async () => {
    const { id } = await session().createVideo(ACCOUNT, "https://cdn.example.test/untimed.mp4");
    const { hash } = await session().uploadImage(ACCOUNT, await png(20, 20, "#445566"));
    const graph = sessionWithout(["created_time"]);
    const video = await graph.getVideo(id);
    expect([video.id, video.status.video_status, video.created_time], show(video)).toEqual([id, "processing", null]);
    const listed = await graph.listVideos(ACCOUNT);
    expect(listed.find((v) => v.id === id)?.created_time, show(listed)).toBeNull();
    const images = await graph.listImages(ACCOUNT, { hashes: [hash] });
    expect(
      images.map((image) => [image.hash, image.created_time]),
      show(images),
    ).toEqual([[hash, null]]);
  });

  it(`reports a video whose URL contains ${SIM_VIDEO_FAIL} as error once processing ends`, async () => {
    const graph = session();
    const { id } = await graph.createVideo(ACCOUNT, `https://cdn.example.test/${SIM_VIDEO_FAIL}/broken.mov`);
    expect((await graph.getVideo(id)).status.video_status).toBe("processing");
    running.simulator.controls.advance(VIDEO_MS);
    expect((await graph.getVideo(id)).status.video_status).toBe("error");
  });
});

describe("ad set validation", () => {
  it("refuses an ad set without targeting_automation.advantage_audience as a validation error naming the field", async () => {
    const params = adSetParams();
    const error = await platformError(session().createAdSet(ACCOUNT, { ...params, targeting: { ...params.targeting, targeting_automation: undefined } }));
    expect(error.kind, show(error)).toBe("validation");
    expect(error.code).toBe(100);
    expect(error.subcode).toBe(1870227);
    expect(error.field).toBe("targeting.targeting_automation.advantage_audience");
    expect(error.userTitle).toBe("Advantage Audience Flag Required");
    expect(error.fbtraceId).toMatch(/^[\w-]{8,}$/);
    expect(error.httpStatus).toBe(400);
    expect(running.simulator.controls.requests(), "validation errors are not retried").toHaveLength(1);

    expect(describePlatformError(error, { fieldMap: { "targeting.targeting_automation.advantage_audience": "targeting" } })).toEqual({
      status: 422,
      code: "validation_error",
      message: "The ad platform rejected the request: Advantage Audience Flag Required",
      details: [{ field: "targeting", issue: error.userMessage }],
    });
  });

  it.each([
    ["an EU country", { countries: ["DE"] }],
    ["a city in the EU", { cities: [{ key: "2618080", radius: 10, distance_unit: "kilometer" as const }] }],
    ["a country group containing the EU", { country_groups: ["europe"] }],
  ])("requires dsa_beneficiary and dsa_payor when targeting reaches %s", async (_, geo) => {
    const graph = session();
    const base = adSetParams();
    const targeting = { ...base.targeting, geo_locations: geo };

    const noBeneficiary = await platformError(graph.createAdSet(ACCOUNT, { ...base, targeting }));
    expect([noBeneficiary.kind, noBeneficiary.subcode, noBeneficiary.field], show(noBeneficiary)).toEqual(["validation", 3858079, "dsa_beneficiary"]);

    const noPayor = await platformError(graph.createAdSet(ACCOUNT, { ...base, targeting, dsa_beneficiary: "Bäckerei Demo GmbH" }));
    expect([noPayor.kind, noPayor.subcode, noPayor.field], show(noPayor)).toEqual(["validation", 3858081, "dsa_payor"]);

    const created = await graph.createAdSet(ACCOUNT, { ...base, targeting, dsa_beneficiary: "Bäckerei Demo GmbH", dsa_payor: "Bäckerei Demo GmbH" });
    expect(created.id).toMatch(/^\d+$/);
  });

  it("accepts non-EU targeting without DSA fields", async () => {
    expect((await session().createAdSet(ACCOUNT, adSetParams())).id).toMatch(/^\d+$/);
  });

  it.each([
    ["both budgets", { daily_budget: 2000, lifetime_budget: 50000, end_time: "2026-04-01T00:00:00+0000" }, "lifetime_budget", undefined],
    ["no budget", { daily_budget: undefined }, "daily_budget", undefined],
    ["a lifetime budget without end_time", { daily_budget: undefined, lifetime_budget: 50000 }, "end_time", undefined],
    ["a daily budget below the minimum", { daily_budget: 50 }, "daily_budget", 1885272],
    ["an end before the start", { start_time: "2026-03-10T00:00:00+0000", end_time: "2026-03-05T00:00:00+0000" }, "end_time", undefined],
  ])("refuses %s", async (_, overrides, field, subcode) => {
    const error = await platformError(session().createAdSet(ACCOUNT, adSetParams(overrides)));
    expect([error.kind, error.code, error.field, error.subcode], show(error)).toEqual(["validation", 100, field, subcode]);
    expect(error.userMessage).toBeTruthy();
  });

  it("accepts a lifetime budget with an end time and updates the budget later", async () => {
    const graph = session();
    const { id } = await graph.createAdSet(ACCOUNT, adSetParams({ daily_budget: undefined, lifetime_budget: 90000, end_time: "2026-04-01T00:00:00+0000" }));
    await graph.updateAdSet(id, { lifetime_budget: 120000, status: "ACTIVE" });
    const view = running.simulator.controls.state.view(id);
    expect(view).toMatchObject({ lifetime_budget: "120000", status: "ACTIVE", effective_status: "ACTIVE" });
  });

  it("refuses an ad set under another account's campaign", async () => {
    const error = await platformError(session().createAdSet(ACCOUNT, adSetParams({ campaign_id: OTHER_CAMPAIGN })));
    expect([error.kind, error.field], show(error)).toEqual(["validation", "campaign_id"]);
  });
});

describe("retries", () => {
  it("retries an injected ad-account rate limit with growing, jittered backoff and then succeeds", async () => {
    running.simulator.controls.failNext({ code: 80004, subcode: 2446079, count: 2 });
    const owner = await session().verifyToken();
    expect(owner.id).toMatch(/^\d+$/);
    expect(running.simulator.controls.requests()).toHaveLength(3);
    // random() = 0.5 with equal jitter: 3/4 of base * 2^(n-1).
    expect(sleeps).toEqual([375, 750]);
  });

  it("gives up after the bounded number of attempts with kind rate_limited", async () => {
    running.simulator.controls.failNext({ code: 17, count: 10 });
    const error = await platformError(session().verifyToken());
    expect(error.kind, show(error)).toBe("rate_limited");
    expect(error.code).toBe(17);
    expect(running.simulator.controls.requests()).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
    expect(describePlatformError(error)).toMatchObject({ status: 429, code: "rate_limited" });
  });

  it("does not wait inside a request for a rate limit Graph says lasts minutes", async () => {
    running.simulator.controls.failNext({ code: 80004, count: 5, estimatedTimeToRegainAccess: 7 });
    const error = await platformError(session().getAdAccount(ACCOUNT));
    expect([error.kind, error.retryAfterSeconds], show(error)).toEqual(["rate_limited", 420]);
    expect(running.simulator.controls.requests()).toHaveLength(1);
    expect(describePlatformError(error).retryAfterSeconds).toBe(420);
  });

  it("retries transient errors (code 2) and succeeds", async () => {
    running.simulator.controls.failNext({ code: 2, count: 1 });
    await session().getAdAccount(ACCOUNT);
    expect(running.simulator.controls.requests()).toHaveLength(2);
    expect(sleeps).toEqual([375]);
  });

  it("turns timeouts into kind transient after the bounded attempts", async () => {
    running.simulator.controls.setLatency(400);
    const error = await platformError(session({ timeoutMs: 40 }).getAdAccount(ACCOUNT));
    expect(error.kind, show(error)).toBe("transient");
    expect(error.outcomeUnknown).toBe(false);
    expect(sleeps).toHaveLength(2);
    expect(describePlatformError(error)).toMatchObject({ status: 503, code: "internal_error" });
  });

  it("never repeats a create whose request may have arrived, and says the outcome is unknown", async () => {
    running.simulator.controls.setLatency(400);
    const error = await platformError(session({ timeoutMs: 40 }).createAdSet(ACCOUNT, adSetParams()));
    expect([error.kind, error.outcomeUnknown], show(error)).toEqual(["transient", true]);
    expect(running.simulator.controls.requests().filter((r) => r.method === "POST")).toHaveLength(1);
    expect(sleeps).toHaveLength(0);
  });

  it("retries a create when the connection was refused (nothing was sent)", async () => {
    const closed = await startGraphSimulator({ port: 0 });
    const deadUrl = closed.graphUrl;
    await closed.close();
    const error = await platformError(session({ baseUrl: deadUrl }).createAdSet(ACCOUNT, adSetParams()));
    expect([error.kind, error.outcomeUnknown], show(error)).toEqual(["transient", false]);
    expect(sleeps).toHaveLength(2);
  });
});

describe("credential failures", () => {
  it("answers a wrong token with kind auth, no retry, and the token appears nowhere in the error", async () => {
    const wrongToken = "EAAwrongTOKEN9876543210zyxwvutsrq";
    const error = await platformError(session({}, { accessToken: wrongToken, appSecret: APP_SECRET }).verifyToken());
    expect([error.kind, error.code], show(error)).toEqual(["auth", 190]);
    expect(running.simulator.controls.requests()).toHaveLength(1);
    expect(sleeps).toHaveLength(0);
    for (const text of [error.message, JSON.stringify(error), String(error), error.stack ?? ""]) {
      expect(text).not.toContain(wrongToken);
      expect(text).not.toContain(APP_SECRET);
    }
    expect(describePlatformError(error)).toMatchObject({ status: 502, code: "internal_error" });
  });

  it("answers an expired token with 190/463", async () => {
    running.simulator.controls.expireToken(TOKEN);
    const error = await platformError(session().getAdAccount(ACCOUNT));
    expect([error.kind, error.code, error.subcode], show(error)).toEqual(["auth", 190, 463]);
  });

  it("rejects a proof made with the wrong app secret (code 100, not shown to the customer)", async () => {
    const wrongSecret = "not-the-app-secret-123";
    const error = await platformError(session({}, { accessToken: TOKEN, appSecret: wrongSecret }).verifyToken());
    expect([error.code, error.subcode, error.message], show(error)).toEqual([100, undefined, "Invalid appsecret_proof provided in the API argument"]);
    expect(JSON.stringify(error)).not.toContain(wrongSecret);
    expect(JSON.stringify(error)).not.toContain(TOKEN);
    expect(describePlatformError(error).status).toBe(502);
  });

  it("tells the session's onTokenRejected about a 190 before throwing, and only about 190", async () => {
    const rejected: PlatformError[] = [];
    const graph = client().connect({ accessToken: TOKEN, appSecret: APP_SECRET }, { onTokenRejected: async (error) => void rejected.push(error) });
    await platformError(graph.getCampaign("120299999999999999"));
    expect(rejected, "a 100/33 is not a token problem").toEqual([]);
    running.simulator.controls.expireToken(TOKEN);
    const error = await platformError(graph.getCampaign(CAMPAIGN));
    expect(rejected).toEqual([error]);
    expect([error.code, error.subcode]).toEqual([190, 463]);
  });

  it("keeps the platform error when the hook itself fails, and logs that", async () => {
    const warnings: string[] = [];
    const graph = client({ logger: { warn: (message) => void warnings.push(message) } }).connect(
      { accessToken: TOKEN, appSecret: APP_SECRET },
      {
        onTokenRejected: async () => {
          throw new Error("database unavailable");
        },
      },
    );
    running.simulator.controls.expireToken(TOKEN);
    const error = await platformError(graph.verifyToken());
    expect([error.kind, error.code], show(error)).toEqual(["auth", 190]);
    expect(warnings).toEqual(["recording a rejected access token failed"]);
  });

  it("classifies an ad account out of reach (100/33) as permission", async () => {
    const error = await platformError(session().getAdAccount("act_999"));
    expect([error.kind, error.code, error.subcode], show(error)).toEqual(["permission", 100, 33]);
  });
});

describe("campaigns", () => {
  it("reads a campaign with the requested fields only, and with the default fields", async () => {
    const graph = session();
    const view = await graph.getCampaign(CAMPAIGN, ["name", "account_id", "configured_status", "effective_status"]);
    expect(view, show(view)).toEqual({
      id: CAMPAIGN,
      name: "Target spring",
      account_id: "4242424242",
      configured_status: "ACTIVE",
      effective_status: "ACTIVE",
    });
    expect(running.simulator.controls.requests()[0]?.query.fields).toBe("name,account_id,configured_status,effective_status");

    const full = await graph.getCampaign(CAMPAIGN);
    expect(full, show(full)).toMatchObject({ id: CAMPAIGN, objective: "OUTCOME_TRAFFIC", status: "ACTIVE", account_id: "4242424242" });
    expect(full, "no campaign budget: the ad sets hold theirs").not.toHaveProperty("daily_budget");
  });

  it("answers an unknown campaign id with 100/33, classified as permission", async () => {
    const error = await platformError(session().getCampaign("120299999999999999"));
    expect([error.kind, error.code, error.subcode], show(error)).toEqual(["permission", 100, 33]);
    const update = await platformError(session().updateCampaign("120299999999999999", { status: "PAUSED" }));
    expect([update.code, update.subcode], show(update)).toEqual([100, 33]);
  });

  it("pauses and resumes a campaign; its ad sets read CAMPAIGN_PAUSED meanwhile", async () => {
    const graph = session();
    const adset = await graph.createAdSet(ACCOUNT, adSetParams({ status: "ACTIVE" }));
    await graph.updateCampaign(CAMPAIGN, { status: "PAUSED" });
    expect(running.simulator.controls.requests().at(-1)?.form.status).toBe("PAUSED");
    expect(await graph.getCampaign(CAMPAIGN, ["configured_status", "effective_status"])).toEqual({
      id: CAMPAIGN,
      configured_status: "PAUSED",
      effective_status: "PAUSED",
    });
    expect(running.simulator.controls.state.view(adset.id)?.effective_status).toBe("CAMPAIGN_PAUSED");
    await graph.updateCampaign(CAMPAIGN, { status: "ACTIVE" });
    expect((await graph.getCampaign(CAMPAIGN, ["effective_status"])).effective_status).toBe("ACTIVE");
    expect(running.simulator.controls.state.view(adset.id)?.effective_status).toBe("ACTIVE");
  });
});

describe("creatives, ads and review", () => {
  async function buildAd(graph: GraphSession, options: { message?: string; status?: "ACTIVE" | "PAUSED" } = {}) {
    const hashes = {
      "1:1": (await graph.uploadImage(ACCOUNT, await png(108, 108, "#111111"))).hash,
      "4:5": (await graph.uploadImage(ACCOUNT, await png(108, 135, "#222222"))).hash,
      "9:16": (await graph.uploadImage(ACCOUNT, await png(108, 192, "#333333"))).hash,
    };
    const adset = await graph.createAdSet(ACCOUNT, adSetParams({ status: "ACTIVE" }));
    const creative = await graph.createAdCreative(
      ACCOUNT,
      buildPlacementCreative({
        name: "Spring creative",
        pageId: PAGE,
        media: { kind: "image", imageHashes: hashes },
        link: "https://shop.example.test/spring?utm_source=meta&utm_medium=paid&utm_campaign=spring",
        displayLink: "shop.example.test/spring",
        message: options.message ?? "Fresh bread every morning.",
        headline: "Spring bakes",
        callToAction: "LEARN_MORE",
      }),
    );
    const ad = await graph.createAd(ACCOUNT, {
      name: "Spring ad",
      adset_id: adset.id,
      creative: { creative_id: creative.id },
      status: options.status ?? "ACTIVE",
    });
    return { adset, creative, ad };
  }

  it("creates a three-ratio placement creative whose link carries the tracking parameters", async () => {
    const graph = session();
    await buildAd(graph);
    const request = running.simulator.controls.requests().find((r) => r.path.endsWith("/adcreatives"));
    const feed = JSON.parse(request?.form.asset_feed_spec ?? "{}") as {
      link_urls: { website_url: string }[];
      asset_customization_rules: unknown[];
      images: unknown[];
    };
    expect(feed.link_urls[0]?.website_url, show(request)).toContain("utm_source=meta");
    expect(feed.images).toHaveLength(3);
    expect(feed.asset_customization_rules).toHaveLength(3);
    expect(JSON.parse(request?.form.object_story_spec ?? "{}")).toEqual({ page_id: PAGE });
  });

  it("moves a new ACTIVE ad from PENDING_REVIEW to ACTIVE after the review delay", async () => {
    const graph = session();
    const { ad } = await buildAd(graph);
    expect(await graph.getAd(ad.id)).toEqual({ id: ad.id, effective_status: "PENDING_REVIEW", configured_status: "ACTIVE" });
    running.simulator.controls.advance(REVIEW_MS);
    expect(await graph.getAd(ad.id)).toEqual({ id: ad.id, effective_status: "ACTIVE", configured_status: "ACTIVE" });
  });

  it("reads an ad whose configured_status Graph left out from status, else from a configured effective_status", async () => {
    const { ad } = await buildAd(session(), { status: "PAUSED" });
    expect(await sessionWithout(["configured_status"]).getAd(ad.id)).toEqual({ id: ad.id, effective_status: "PENDING_REVIEW", configured_status: "PAUSED" });
    running.simulator.controls.advance(REVIEW_MS);
    expect(await sessionWithout(["configured_status", "status"]).getAd(ad.id)).toEqual({ id: ad.id, effective_status: "PAUSED", configured_status: "PAUSED" });
    expect(await sessionWithout(["effective_status"]).getAd(ad.id)).toEqual({ id: ad.id, effective_status: "PAUSED", configured_status: "PAUSED" });
  });

  it("reads an ad answer from which no configured status can be told (it stays unknown); refuses one without any status", async () => {
    const { ad } = await buildAd(session());
    const view = await sessionWithout(["configured_status", "status"]).getAd(ad.id);
    expect(view, show(view)).toEqual({ id: ad.id, effective_status: "PENDING_REVIEW" });
    const error = await platformError(sessionWithout(["configured_status", "status", "effective_status"]).getAd(ad.id));
    expect([error.kind, error.message], show(error)).toEqual(["unknown", `Graph API answered ${ad.id} with an unexpected shape`]);
  });

  it("moves a new PAUSED ad to PAUSED after review, and to ACTIVE when activated", async () => {
    const graph = session();
    const { ad } = await buildAd(graph, { status: "PAUSED" });
    running.simulator.controls.advance(REVIEW_MS);
    expect((await graph.getAd(ad.id)).effective_status).toBe("PAUSED");
    await graph.updateAd(ad.id, { status: "ACTIVE" });
    expect((await graph.getAd(ad.id)).effective_status).toBe("ACTIVE");
  });

  it(`disapproves an ad whose copy contains ${SIM_DISAPPROVE}, with the reason in ad_review_feedback`, async () => {
    const graph = session();
    const { ad } = await buildAd(graph, { message: `Best bread in town ${SIM_DISAPPROVE}` });
    expect((await graph.getAd(ad.id)).effective_status).toBe("PENDING_REVIEW");
    running.simulator.controls.advance(REVIEW_MS);
    const view = await graph.getAd(ad.id);
    expect(view.effective_status, show(view)).toBe("DISAPPROVED");
    expect(view.ad_review_feedback?.global).toEqual({ MISLEADING_CLAIMS: expect.stringContaining("misleading") });
  });

  it("archives an ad; an archived ad can only be renamed", async () => {
    const graph = session();
    const { ad, adset } = await buildAd(graph);
    await graph.archive(ad.id);
    expect(await graph.getAd(ad.id)).toMatchObject({ effective_status: "ARCHIVED", configured_status: "ARCHIVED" });
    const archivedRequest = running.simulator.controls.requests().at(-2);
    expect(archivedRequest?.form.status).toBe("ARCHIVED");

    const error = await platformError(graph.updateAd(ad.id, { status: "ACTIVE" }));
    expect([error.kind, error.subcode], show(error)).toEqual(["validation", 1885088]);
    await graph.updateAd(ad.id, { name: "Renamed" });

    await graph.archive(adset.id);
    expect(running.simulator.controls.state.view(adset.id)).toMatchObject({ status: "ARCHIVED", effective_status: "ARCHIVED" });
  });

  it("refuses an ad whose creative belongs to another ad account", async () => {
    const graph = session();
    const { adset } = await buildAd(graph);
    const foreignImage = await graph.uploadImage(OTHER_ACCOUNT, await png(50, 50, "#abcdef"));
    const foreignCreative = await graph.createAdCreative(OTHER_ACCOUNT, {
      object_story_spec: { page_id: PAGE, link_data: { link: "https://shop.example.test/", image_hash: foreignImage.hash } },
    });
    const error = await platformError(
      graph.createAd(ACCOUNT, { name: "x", adset_id: adset.id, creative: { creative_id: foreignCreative.id }, status: "PAUSED" }),
    );
    expect([error.kind, error.field], show(error)).toEqual(["validation", "creative"]);
  });

  it("refuses a video creative until the video is ready", async () => {
    const graph = session();
    const { id: videoId } = await graph.createVideo(ACCOUNT, "https://cdn.example.test/v.mp4");
    const spec = {
      object_story_spec: {
        page_id: PAGE,
        video_data: { video_id: videoId, message: "Watch", call_to_action: { type: "LEARN_MORE", value: { link: "https://shop.example.test/" } } },
      },
    };
    const error = await platformError(graph.createAdCreative(ACCOUNT, spec));
    expect([error.kind, error.userTitle], show(error)).toEqual(["validation", "Video Still Processing"]);
    running.simulator.controls.advance(VIDEO_MS);
    expect((await graph.createAdCreative(ACCOUNT, spec)).id).toMatch(/^\d+$/);
  });
});

test("usagePercent reads the highest share any usage header reports, and nothing from unreadable ones", () => {
  const headers = (entries: Record<string, string>) => new Headers(entries);
  expect(usagePercent(headers({}))).toBeUndefined();
  expect(
    usagePercent(
      headers({ "x-business-use-case-usage": JSON.stringify({ "123": [{ type: "ads_insights", call_count: 12, total_cputime: 91, total_time: 40 }] }) }),
    ),
  ).toBe(91);
  expect(
    usagePercent(
      headers({
        "x-ad-account-usage": JSON.stringify({ acc_id_util_pct: 7.5 }),
        "x-app-usage": JSON.stringify({ call_count: 3, total_time: 9, total_cputime: 2 }),
      }),
    ),
  ).toBe(9);
  expect(usagePercent(headers({ "x-business-use-case-usage": "not json", "x-app-usage": JSON.stringify({ call_count: "high" }) }))).toBeUndefined();
});
