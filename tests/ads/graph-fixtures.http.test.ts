import { createHmac } from "node:crypto";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ManualClock } from "../../lib/base/clock";
import { appSecretProof, createGraphClient, PlatformError } from "../../lib/ads/platform";
import { createGraphSimulator } from "../../lib/ads/platform/simulator/app";
import { describeResponse, type Envelope } from "../helpers/harness";
import { providerFixture, serveFixtures, shapeDifferences, type FixtureServer } from "../helpers/provider-fixtures";
import { createAd, createAdsWorld, onboardedCustomer, type AdsWorld, type OnboardedCustomer } from "./support/ads-world";

/**
 * Graph payloads from Meta's docs (`tests/fixtures/providers/graph/`, each with its source): served by a
 * loopback server to the real Graph client, posted to our webhook receiver over the app's HTTP interface,
 * and compared by shape (keys and JSON types) with what the Graph simulator answers for the same request.
 */
const graph = (name: string) => providerFixture("graph", name);
const TOKEN = "EAAfixtureToken000111222333444555";
const APP_SECRET = "fixture-app-secret";
const ACCOUNT = "1234567890";

describe("the Graph client reads the documented answers (loopback server serving the fixtures)", () => {
  let server: FixtureServer;
  beforeAll(async () => {
    const byId: Record<string, string> = {
      "/v25.0/120330000000000001": "ad-disapproved",
      "/v25.0/120330000000000009": "ad-with-issues",
      "/v25.0/": "ads-batch-ids",
      [`/v25.0/act_${ACCOUNT}/adimages`]: "adimages",
      "/v25.0/120330000000000030": "advideo",
      "/v25.0/23850000000000040": "customaudience",
      [`/v25.0/act_${ACCOUNT}/insights`]: "insights-page",
      "/v25.0/120330000000000099": "error-throttled",
    };
    server = await serveFixtures(({ url }) => {
      const name = byId[url.pathname];
      return name ? graph(name) : undefined;
    });
  });
  afterAll(async () => server.close());
  const session = () =>
    createGraphClient({ baseUrl: `${server.url}/v25.0`, maxAttempts: 1, maxDelayMs: 0 }).connect(
      { accessToken: TOKEN, appSecret: APP_SECRET },
      {},
      { adAccountId: ACCOUNT },
    );

  test("a DISAPPROVED ad without status fields, singly and in a batched ?ids= read; a WITH_ISSUES ad with an integer error_code", async () => {
    const s = session();
    const { ad_review_feedback } = graph("ad-disapproved").body as { ad_review_feedback: unknown };
    expect(await s.getAd("120330000000000001")).toEqual({ id: "120330000000000001", effective_status: "DISAPPROVED", ad_review_feedback });
    const batch = await s.getAds(["120330000000000001", "120330000000000002"]);
    expect(batch.get("120330000000000001")?.effective_status).toBe("DISAPPROVED");
    expect(batch.get("120330000000000001")?.configured_status).toBeUndefined();
    expect(batch.get("120330000000000002")).toEqual({ id: "120330000000000002", effective_status: "ACTIVE", configured_status: "ACTIVE" });
    const withIssues = await s.getAd("120330000000000009");
    expect(withIssues).toMatchObject({ effective_status: "WITH_ISSUES", configured_status: "PAUSED", issues_info: [{ level: "AD", error_code: "1815869" }] });
  });

  test("an image page, a ready video, an audience and an insights page", async () => {
    const s = session();
    expect(await s.listImages(ACCOUNT)).toEqual([
      expect.objectContaining({ hash: "0d500843a1d4699a0b41e99f4137a5c3", width: 1080, height: 1080, created_time: "2026-01-15T10:00:00+0000" }),
    ]);
    expect((await s.getVideo("120330000000000030")).status.video_status).toBe("ready");
    expect(await s.getCustomAudience("23850000000000040")).toMatchObject({
      approximate_count_lower_bound: 1000,
      operation_status: { code: 200, description: "Normal" },
      delivery_status: { code: 200 },
    });
    const rows = await s.getDailyAdInsights(ACCOUNT, { since: "2026-01-14", until: "2026-01-14", breakdowns: [] });
    expect(rows).toEqual([expect.objectContaining({ ad_id: "120330000000000002", spend: "12.34", impressions: "2466", date_start: "2026-01-14" })]);
  });

  test("a throttling error with its usage headers is a rate limit with Graph's time to regain access", async () => {
    const error = await session()
      .getAd("120330000000000099")
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ kind: "rate_limited", code: 80004, retryAfterSeconds: 300 });
  });
});

describe("the Graph simulator answers the same requests in the same shapes", () => {
  const clock = new ManualClock("2026-01-15T10:00:00.000Z");
  const simulator = createGraphSimulator({
    clock,
    apps: [{ appSecret: APP_SECRET, accessTokens: [TOKEN] }],
    adAccounts: [{ id: ACCOUNT, pageIds: ["1234567890123"], campaigns: [{ id: "120330000000000777", name: "fixtures" }] }],
    reviewDelayMs: 1_000,
    processingDelayMs: 1_000,
    videoProcessingMs: 0,
  });
  const session = createGraphClient({ baseUrl: "http://graph.test/v25.0", fetch: simulator.fetch, maxAttempts: 1 }).connect(
    { accessToken: TOKEN, appSecret: APP_SECRET },
    {},
    { adAccountId: ACCOUNT },
  );
  /** The fixture's request against the simulator, raw: its path and `fields`, the token and its proof. */
  const read = async (path: string, fields: string | undefined, query: Record<string, string> = {}) => {
    const url = new URL(`http://graph.test/v25.0/${path}`);
    for (const [name, value] of Object.entries({ ...query, ...(fields ? { fields } : {}) })) url.searchParams.set(name, value);
    url.searchParams.set("access_token", TOKEN);
    url.searchParams.set("appsecret_proof", appSecretProof(TOKEN, APP_SECRET));
    const response = await simulator.fetch(url.toString(), { method: "GET" });
    return { status: response.status, headers: response.headers, body: (await response.json()) as unknown };
  };
  const compare = (name: string, answer: { status: number; body: unknown }, opaque: string[] = []) => {
    const fixture = graph(name);
    expect(answer.status, name).toBe(fixture.status ?? 200);
    return shapeDifferences(fixture.body, answer.body, "", opaque).map((difference) => `${name}: ${difference}`);
  };

  test("ads (DISAPPROVED, WITH_ISSUES, a batched ?ids= read), an ad set, a creative, images, a video, an audience, an insights page, a throttling error", async () => {
    const square = await sharp({ create: { width: 1080, height: 1080, channels: 3, background: "#0b6e4f" } })
      .jpeg()
      .toBuffer();
    const image = await session.uploadImage(ACCOUNT, square);
    const adSet = (
      await session.createAdSet(ACCOUNT, {
        name: "My Ad Set",
        campaign_id: "120330000000000777",
        status: "PAUSED",
        billing_event: "IMPRESSIONS",
        optimization_goal: "REACH",
        daily_budget: 1000,
        targeting: {
          age_min: 18,
          age_max: 65,
          geo_locations: { countries: ["US"], location_types: ["home", "recent"] },
          targeting_automation: { advantage_audience: 0 },
        },
      })
    ).id;
    const creative = async (message: string) =>
      (
        await session.createAdCreative(ACCOUNT, {
          name: "Sample Creative",
          object_story_spec: { page_id: "1234567890123", link_data: { link: "https://www.example.com/", message, image_hash: image.hash } },
        })
      ).id;
    const ad = async (message: string, status: "ACTIVE" | "PAUSED") =>
      (await session.createAd(ACCOUNT, { name: "ad", adset_id: adSet, creative: { creative_id: await creative(message) }, status })).id;
    const disapproved = await ad("try it out SIM_DISAPPROVE:ADULT_CONTENT", "ACTIVE");
    const withIssues = await ad("try it out SIM_WITH_ISSUES", "PAUSED");
    const plain = await ad("try it out", "ACTIVE");
    const video = (await session.createVideo(ACCOUNT, "https://cdn.example.com/spring.mp4", { title: "Spring" })).id;
    const audience = (
      await session.createCustomAudience(ACCOUNT, { name: "My new Custom Audience", subtype: "CUSTOM", customer_file_source: "USER_PROVIDED_ONLY" })
    ).id;
    const delivering = simulator.controls.state.ads.get(plain);
    if (delivering) delivering.createdMs -= 3 * 86_400_000;
    simulator.controls.advance(60_000);
    // The docs show a DISAPPROVED ad without configured_status/status even where they were asked; the
    // simulator answers with them unless told the documented shape (its shape control).
    simulator.controls.reshape(disapproved, { omit: ["configured_status", "status"] });

    const fields = (name: string) => graph(name).request?.fields;
    const differences = [
      ...compare("ad-disapproved", await read(disapproved, fields("ad-disapproved")), ["ad_review_feedback.global"]),
      ...compare("ad-with-issues", await read(withIssues, fields("ad-with-issues"))),
      ...compare("ads-batch-ids", await read("", fields("ads-batch-ids"), { ids: `${disapproved},${plain}` }), ["ad_review_feedback.global"]).map(
        (difference) => difference.replace(new RegExp(`${disapproved}|${plain}`, "g"), "{ad_id}"),
      ),
      // `targeting` echoes what the ad set was created with (ours adds the targeting_automation v23 requires).
      ...compare("adset", await read(adSet, fields("adset")), ["targeting"]),
      ...compare("adcreative", await read(await creative("try it out"), fields("adcreative"))),
      ...compare("adimages", await read(`act_${ACCOUNT}/adimages`, fields("adimages"))),
      ...compare("advideo", await read(video, fields("advideo"))),
      ...compare("customaudience", await read(audience, fields("customaudience"))),
      ...compare(
        "insights-page",
        await read(`act_${ACCOUNT}/insights`, fields("insights-page"), {
          level: "ad",
          time_increment: "1",
          time_range: JSON.stringify({ since: "2026-01-14", until: "2026-01-14" }),
        }),
      ),
    ];
    // The batched read is keyed by ad id: compare item by item under the fixture's own ids.
    expect(differences.filter((difference) => !difference.startsWith("ads-batch-ids"))).toEqual([]);
    const batch = (await read("", fields("ads-batch-ids"), { ids: `${disapproved},${plain}` })).body as Record<string, unknown>;
    const fixtureBatch = graph("ads-batch-ids").body as Record<string, unknown>;
    expect([
      ...shapeDifferences(Object.values(fixtureBatch)[0], batch[disapproved], "{disapproved}", ["{disapproved}.ad_review_feedback.global"]),
      ...shapeDifferences(Object.values(fixtureBatch)[1], batch[plain], "{active}"),
    ]).toEqual([]);

    simulator.controls.throttle(ACCOUNT, { limit: 0, windowMs: 60_000 });
    const throttled = await read(plain, fields("error-throttled"));
    simulator.controls.throttle(ACCOUNT, null);
    const fixture = graph("error-throttled");
    expect(throttled.status).toBe(fixture.status);
    expect(shapeDifferences(fixture.body, throttled.body)).toEqual([]);
    for (const [header, value] of Object.entries(fixture.headers ?? {})) {
      const ours = throttled.headers.get(header);
      expect(ours, header).not.toBeNull();
      const [fixtureUsage, ourUsage] = [JSON.parse(value) as Record<string, unknown>, JSON.parse(ours ?? "{}") as Record<string, unknown>];
      // X-Business-Use-Case-Usage is keyed by business object id: compare the entries, not the ids.
      if (header === "x-business-use-case-usage") expect(shapeDifferences(Object.values(fixtureUsage)[0], Object.values(ourUsage)[0], header)).toEqual([]);
      else expect(shapeDifferences(fixtureUsage, ourUsage, header)).toEqual([]);
    }
  });
});

describe("the webhook receiver takes the documented notifications", () => {
  let world: AdsWorld;
  let own: OnboardedCustomer;
  beforeAll(async () => {
    world = await createAdsWorld();
    own = await onboardedCustomer(world, "Fixture customer");
  });
  afterAll(async () => world.close());
  const sign = (body: string, secret: string) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
  /** The fixture with our ad account and object ids in place of the docs' placeholders, byte for byte otherwise. */
  const replay = async (name: string, objectId: string) => {
    const body = JSON.stringify(graph(name).body)
      .replaceAll(`"${ACCOUNT}"`, `"${own.adAccountId}"`)
      .replace(/"id":"1203300000000000\d\d"/, `"id":"${objectId}"`);
    return world.h.call<Envelope<unknown>>("POST", "/api/platform/webhook", {
      rawBody: body,
      headers: { "content-type": "application/json", "x-hub-signature-256": sign(body, own.appSecret) },
    });
  };

  test("an AD-level with_issues_ad_objects re-reads the ad; a CAMPAIGN-level one is acknowledged and not acted on", async () => {
    const ad = await createAd(world, own, { status: "ACTIVE" });
    const adLevel = await replay("webhook-with-issues-ad", ad.platform_ad_id);
    expect(adLevel.status, describeResponse(adLevel)).toBe(200);
    expect(adLevel.json.data).toMatchObject({ named: 1, read: 1 });
    const campaignLevel = await replay("webhook-with-issues-campaign", own.campaignId);
    expect(campaignLevel.status, describeResponse(campaignLevel)).toBe(200);
    expect(campaignLevel.json.data).toEqual({ named: 0, read: 0, changed: 0, ignored: { "with_issues_ad_objects:CAMPAIGN": 1 } });
  });
});
