import { createHash, createHmac } from "node:crypto";
import sharp from "sharp";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../lib/base/clock";
import { createGraphSimulator } from "../../lib/ads/platform/simulator/app";
import { SIM_DISAPPROVE } from "../../lib/ads/platform/simulator/markers";
import { startGraphSimulator, type RunningGraphSimulator } from "../../lib/ads/platform/simulator/server";

const APP_SECRET = "sim-secret-for-raw-http";
const TOKEN = "EAAsimRAWhttpTOKEN000111222333";
const ACCOUNT = "act_777000777";
const CAMPAIGN = "120200000000000777";
const PAGE = "555666777";
const REVIEW_MS = 5_000;

let running: RunningGraphSimulator;
const clock = new ManualClock("2026-05-04T08:00:00.000Z");

type Answer = { status: number; headers: Headers; body: Record<string, unknown> };

/** A raw Graph call as any HTTP client would make it: form-encoded, token and proof as parameters. */
async function graph(
  method: "GET" | "POST" | "DELETE",
  path: string,
  params: Record<string, string> = {},
  auth: { token?: string; proof?: string | null } = {},
): Promise<Answer> {
  const token = auth.token ?? TOKEN;
  const proof = auth.proof === undefined ? createHmac("sha256", APP_SECRET).update(token).digest("hex") : auth.proof;
  const all = new URLSearchParams({ ...params, access_token: token, ...(proof === null ? {} : { appsecret_proof: proof }) });
  const url = method === "GET" ? `${running.url}${path}?${all.toString()}` : `${running.url}${path}`;
  const response = await fetch(url, {
    method,
    ...(method === "GET" ? {} : { body: all.toString(), headers: { "content-type": "application/x-www-form-urlencoded" } }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

async function control(path: string, body: unknown): Promise<Answer> {
  const response = await fetch(`${running.url}/__sim/${path}`, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

const show = (answer: unknown) => JSON.stringify(answer, null, 2);
const errorOf = (answer: Answer) => answer.body.error as Record<string, unknown>;

const targeting = JSON.stringify({ geo_locations: { countries: ["US"] }, targeting_automation: { advantage_audience: 1 } });

async function createAdSet(extra: Record<string, string> = {}): Promise<string> {
  const answer = await graph("POST", `/v25.0/${ACCOUNT}/adsets`, {
    name: "Raw ad set",
    campaign_id: CAMPAIGN,
    billing_event: "IMPRESSIONS",
    optimization_goal: "LINK_CLICKS",
    daily_budget: "1500",
    status: "ACTIVE",
    targeting,
    ...extra,
  });
  expect(answer.status, show(answer)).toBe(200);
  return String(answer.body.id);
}

async function createLinkCreative(message: string): Promise<string> {
  const answer = await graph("POST", `/v25.0/${ACCOUNT}/adcreatives`, {
    name: "Raw creative",
    object_story_spec: JSON.stringify({ page_id: PAGE, link_data: { link: "https://shop.example.test/", message } }),
  });
  expect(answer.status, show(answer)).toBe(200);
  return String(answer.body.id);
}

beforeAll(async () => {
  running = await startGraphSimulator({
    port: 0,
    clock,
    reviewDelayMs: REVIEW_MS,
    apps: [{ appSecret: APP_SECRET, accessTokens: [TOKEN] }],
    adAccounts: [{ id: ACCOUNT, pageIds: [PAGE], campaigns: [{ id: CAMPAIGN }] }],
  });
});

afterAll(async () => {
  await running.close();
});

beforeEach(() => {
  running.simulator.controls.reset();
});

describe("Graph error objects", () => {
  it("answers with Graph's error shape: code, subcode, user title/message, error_data as a JSON string, fresh fbtrace_id", async () => {
    const first = await graph("POST", `/v25.0/${ACCOUNT}/adsets`, {
      name: "x",
      campaign_id: CAMPAIGN,
      billing_event: "IMPRESSIONS",
      daily_budget: "1500",
      targeting: JSON.stringify({ geo_locations: { countries: ["US"] } }),
    });
    expect(first.status, show(first)).toBe(400);
    const error = errorOf(first);
    expect(error).toMatchObject({
      message: "Invalid parameter",
      type: "OAuthException",
      code: 100,
      error_subcode: 1870227,
      is_transient: false,
      error_user_title: "Advantage Audience Flag Required",
    });
    expect(typeof error.error_data, show(first)).toBe("string");
    expect(JSON.parse(String(error.error_data))).toEqual({ blame_field_specs: [["targeting", "targeting_automation", "advantage_audience"]] });
    expect(first.headers.get("x-fb-trace-id")).toBe(error.fbtrace_id);

    const second = await graph("GET", "/v25.0/act_1");
    expect(errorOf(second).fbtrace_id).not.toBe(error.fbtrace_id);
    expect(errorOf(second)).toMatchObject({ code: 100, error_subcode: 33, type: "GraphMethodException" });
  });

  it("names a missing required parameter the way Graph's parameter checks do", async () => {
    const answer = await graph("POST", `/v25.0/${ACCOUNT}/ads`, { adset_id: "1" });
    expect(errorOf(answer), show(answer)).toMatchObject({ message: "(#100) The parameter name is required", code: 100 });
  });

  it.each([
    ["no token", { token: "" }, 104, undefined],
    ["an unknown token", { token: "EAAnotregistered" }, 190, undefined],
    ["no appsecret_proof", { proof: null }, 100, "API calls from the server require an appsecret_proof argument"],
    ["a wrong appsecret_proof", { proof: "00".repeat(32) }, 100, "Invalid appsecret_proof provided in the API argument"],
  ])("rejects a call with %s", async (_, auth, code, message) => {
    const answer = await graph("GET", "/v25.0/me", {}, auth);
    expect(answer.status, show(answer)).toBe(400);
    expect(errorOf(answer).code).toBe(code);
    if (message) expect(errorOf(answer).message).toBe(message);
    expect(show(answer)).not.toContain("EAAnotregistered");
  });

  it("answers 2635 for an old or missing API version", async () => {
    for (const path of ["/v19.0/me", "/me"]) {
      const answer = await graph("GET", path);
      expect(errorOf(answer), show(answer)).toMatchObject({ code: 2635 });
      expect(String(errorOf(answer).message)).toContain("v25.0");
    }
  });
});

describe("objects", () => {
  it("returns only the requested fields plus id", async () => {
    const id = await createAdSet();
    const answer = await graph("GET", `/v25.0/${id}`, { fields: "name,daily_budget" });
    expect(answer.body, show(answer)).toEqual({ id, name: "Raw ad set", daily_budget: "1500" });
  });

  it("keys a bytes upload 'bytes' and a file upload by its file name; the hash is the file's MD5", async () => {
    const bytes = await sharp({ create: { width: 30, height: 20, channels: 3, background: "#ff0000" } })
      .jpeg()
      .toBuffer();
    const md5 = createHash("md5").update(bytes).digest("hex");
    const viaBytes = await graph("POST", `/v25.0/${ACCOUNT}/adimages`, { bytes: bytes.toString("base64") });
    expect(viaBytes.body, show(viaBytes)).toMatchObject({ images: { bytes: { hash: md5, width: 30, height: 20 } } });

    const form = new FormData();
    form.set("access_token", TOKEN);
    form.set("appsecret_proof", createHmac("sha256", APP_SECRET).update(TOKEN).digest("hex"));
    form.set("filename", new Blob([new Uint8Array(bytes)], { type: "image/jpeg" }), "hero.jpg");
    const response = await fetch(`${running.url}/v25.0/${ACCOUNT}/adimages`, { method: "POST", body: form });
    const viaFile = (await response.json()) as Record<string, unknown>;
    expect(viaFile, show(viaFile)).toMatchObject({ images: { "hero.jpg": { hash: md5 } } });

    const served = await fetch(String((viaBytes.body.images as Record<string, { url: string }>).bytes?.url));
    expect(served.headers.get("content-type")).toBe("image/jpeg");
    expect(Buffer.from(await served.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it("refuses bytes that are not an image", async () => {
    const answer = await graph("POST", `/v25.0/${ACCOUNT}/adimages`, { bytes: Buffer.from("not an image").toString("base64") });
    expect(errorOf(answer), show(answer)).toMatchObject({ code: 100, error_user_title: "Image Could Not Be Processed" });
  });

  it("pages lists with cursors and a next link", async () => {
    for (const name of ["a", "b", "c"]) {
      const created = await graph("POST", `/v25.0/${ACCOUNT}/campaigns`, { name, objective: "OUTCOME_TRAFFIC", special_ad_categories: "[]" });
      expect(created.status, show(created)).toBe(200);
    }
    const first = await graph("GET", `/v25.0/${ACCOUNT}/campaigns`, { fields: "name", limit: "2" });
    const firstData = first.body.data as { name: string }[];
    expect(firstData, show(first)).toHaveLength(2);
    const paging = first.body.paging as { cursors: { after: string }; next?: string };
    expect(paging.next).toBeTruthy();
    const second = await graph("GET", `/v25.0/${ACCOUNT}/campaigns`, { fields: "name", limit: "2", after: paging.cursors.after });
    const secondData = second.body.data as { name: string }[];
    expect(secondData, show(second)).toHaveLength(2);
    // Three created plus the registered target campaign.
    expect(new Set([...firstData, ...secondData].map((c) => c.name)).size).toBe(4);
    expect((second.body.paging as { next?: string }).next).toBeUndefined();
  });

  it("reads a campaign in Graph's shape, narrowed to the fields asked for; an unknown id is 100/33", async () => {
    const answer = await graph("GET", `/v25.0/${CAMPAIGN}`, { fields: "name,account_id,objective,configured_status,effective_status,daily_budget" });
    expect(answer.status, show(answer)).toBe(200);
    expect(answer.body).toEqual({
      id: CAMPAIGN,
      name: `Campaign ${CAMPAIGN}`,
      account_id: ACCOUNT.slice(4),
      objective: "OUTCOME_TRAFFIC",
      configured_status: "ACTIVE",
      effective_status: "ACTIVE",
    });
    const unknown = await graph("GET", "/v25.0/120299999999999999", { fields: "name" });
    expect(unknown.status, show(unknown)).toBe(400);
    expect(errorOf(unknown)).toMatchObject({ code: 100, error_subcode: 33, type: "GraphMethodException" });
    expect(String(errorOf(unknown).message)).toContain("120299999999999999");
  });

  it("pauses a campaign with POST /{id} status, refuses other values, and 100/33 for an unknown id", async () => {
    expect((await graph("POST", `/v25.0/${CAMPAIGN}`, { status: "PAUSED" })).body).toEqual({ success: true });
    expect((await graph("GET", `/v25.0/${CAMPAIGN}`, { fields: "status,effective_status" })).body).toEqual({
      id: CAMPAIGN,
      status: "PAUSED",
      effective_status: "PAUSED",
    });
    const bogus = await graph("POST", `/v25.0/${CAMPAIGN}`, { status: "SLEEPING" });
    expect(errorOf(bogus), show(bogus)).toMatchObject({ code: 100 });
    const unknown = await graph("POST", "/v25.0/120299999999999999", { status: "PAUSED" });
    expect(errorOf(unknown), show(unknown)).toMatchObject({ code: 100, error_subcode: 33 });
  });

  it("updates with { success: true } and deletes", async () => {
    const id = await createAdSet();
    const update = await graph("POST", `/v25.0/${id}`, { daily_budget: "3000" });
    expect(update.body, show(update)).toEqual({ success: true });
    expect((await graph("GET", `/v25.0/${id}`, { fields: "daily_budget" })).body.daily_budget).toBe("3000");
    const switchType = await graph("POST", `/v25.0/${id}`, { lifetime_budget: "90000" });
    expect(errorOf(switchType), show(switchType)).toMatchObject({ code: 100, error_user_title: "Budget Type Can't Be Changed" });
    expect((await graph("DELETE", `/v25.0/${id}`)).body).toEqual({ success: true });
    expect((await graph("GET", `/v25.0/${id}`, { fields: "effective_status" })).body.effective_status).toBe("DELETED");
  });
});

describe("review and delivery status", () => {
  it("shows ADSET_PAUSED for an approved ad under a paused ad set, and the disapproval reason chosen in the marker", async () => {
    const adsetId = await createAdSet({ status: "PAUSED" });
    const good = await graph("POST", `/v25.0/${ACCOUNT}/ads`, {
      name: "good",
      adset_id: adsetId,
      creative: JSON.stringify({ creative_id: await createLinkCreative("Fresh bread") }),
      status: "ACTIVE",
    });
    const bad = await graph("POST", `/v25.0/${ACCOUNT}/ads`, {
      name: "bad",
      adset_id: adsetId,
      creative: JSON.stringify({ creative_id: await createLinkCreative(`Miracle bread ${SIM_DISAPPROVE}:TEXT_OVERLAY`) }),
      status: "ACTIVE",
    });
    expect([good.status, bad.status], show([good, bad])).toEqual([200, 200]);

    const fields = { fields: "effective_status,configured_status,ad_review_feedback" };
    expect((await graph("GET", `/v25.0/${String(bad.body.id)}`, fields)).body).toEqual({
      id: bad.body.id,
      effective_status: "PENDING_REVIEW",
      configured_status: "ACTIVE",
    });

    const advanced = await control("advance", { ms: REVIEW_MS });
    expect(advanced.status, show(advanced)).toBe(200);
    expect((await graph("GET", `/v25.0/${String(good.body.id)}`, fields)).body).toMatchObject({ effective_status: "ADSET_PAUSED" });
    const disapproved = await graph("GET", `/v25.0/${String(bad.body.id)}`, fields);
    expect(disapproved.body, show(disapproved)).toMatchObject({
      effective_status: "DISAPPROVED",
      ad_review_feedback: { global: { TEXT_OVERLAY: expect.any(String) } },
    });
  });

  it("refuses an asset feed with fewer than two customization rules", async () => {
    const bytes = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#00ff00" } })
      .png()
      .toBuffer();
    const upload = await graph("POST", `/v25.0/${ACCOUNT}/adimages`, { bytes: bytes.toString("base64") });
    const hash = (upload.body.images as Record<string, { hash: string }>).bytes?.hash ?? "";
    const answer = await graph("POST", `/v25.0/${ACCOUNT}/adcreatives`, {
      object_story_spec: JSON.stringify({ page_id: PAGE }),
      asset_feed_spec: JSON.stringify({
        images: [{ hash, adlabels: [{ name: "only" }] }],
        link_urls: [{ website_url: "https://shop.example.test/" }],
        ad_formats: ["SINGLE_IMAGE"],
        asset_customization_rules: [{ customization_spec: {}, image_label: { name: "only" } }],
        optimization_type: "PLACEMENT",
      }),
    });
    expect(errorOf(answer), show(answer)).toMatchObject({ code: 100, error_user_title: "Not Enough Customization Rules" });
  });

  it("refuses a creative for a page not connected to the ad account", async () => {
    const answer = await graph("POST", `/v25.0/${ACCOUNT}/adcreatives`, {
      object_story_spec: JSON.stringify({ page_id: "999", link_data: { link: "https://shop.example.test/" } }),
    });
    expect(errorOf(answer), show(answer)).toMatchObject({ code: 100, error_user_title: "Page Not Available" });
  });
});

describe("controls over HTTP", () => {
  it("injects a rate limit with Graph's Business Use Case header for matching calls only", async () => {
    const injected = await control("fail-next", { code: 80004, subcode: 2446079, count: 1, estimatedTimeToRegainAccess: 3, match: { path: "/adsets" } });
    expect(injected.status, show(injected)).toBe(200);
    expect((await graph("GET", "/v25.0/me")).status).toBe(200);
    const limited = await graph("GET", `/v25.0/${ACCOUNT}/adsets`);
    expect(errorOf(limited), show(limited)).toMatchObject({ code: 80004, error_subcode: 2446079, is_transient: true });
    const usage = JSON.parse(limited.headers.get("x-business-use-case-usage") ?? "{}") as Record<string, { estimated_time_to_regain_access: number }[]>;
    expect(usage["777000777"]?.[0]?.estimated_time_to_regain_access).toBe(3);
    expect((await graph("GET", `/v25.0/${ACCOUNT}/adsets`)).status).toBe(200);
  });

  it("lists the received calls with their exact form fields", async () => {
    await createAdSet({ dsa_beneficiary: "Demo GmbH" });
    const response = await fetch(`${running.url}/__sim/requests`);
    const { data } = (await response.json()) as { data: { method: string; path: string; form: Record<string, string> }[] };
    expect(data, show(data)).toHaveLength(1);
    expect(data[0]).toMatchObject({ method: "POST", path: `/v25.0/${ACCOUNT}/adsets` });
    expect(data[0]?.form).toMatchObject({
      targeting,
      dsa_beneficiary: "Demo GmbH",
      appsecret_proof: createHmac("sha256", APP_SECRET).update(TOKEN).digest("hex"),
    });
    await fetch(`${running.url}/__sim/requests`, { method: "DELETE" });
    expect(running.simulator.controls.requests()).toHaveLength(0);
  });

  it("registers apps, ad accounts and campaigns, and expires tokens", async () => {
    expect((await control("apps", { appSecret: "second-secret", accessTokens: ["EAAsecondTOKEN"] })).status).toBe(200);
    expect((await control("ad-accounts", { id: "888", pageIds: [PAGE] })).status).toBe(200);
    const campaign = await control("ad-accounts/888/campaigns", { name: "Later" });
    expect(String(campaign.body.id), show(campaign)).toMatch(/^\d+$/);
    const proof = createHmac("sha256", "second-secret").update("EAAsecondTOKEN").digest("hex");
    const read = await graph("GET", `/v25.0/${String(campaign.body.id)}`, { fields: "name,account_id" }, { token: "EAAsecondTOKEN", proof });
    expect(read.body, show(read)).toMatchObject({ name: "Later", account_id: "888" });

    expect((await control("expire-token", { token: "EAAsecondTOKEN" })).status).toBe(200);
    const expired = await graph("GET", "/v25.0/me", {}, { token: "EAAsecondTOKEN", proof });
    expect(errorOf(expired), show(expired)).toMatchObject({ code: 190, error_subcode: 463 });
    expect(expired.headers.get("www-authenticate")).toContain("invalid_token");
  });

  it("rejects a malformed control request with a plain 400", async () => {
    const answer = await control("fail-next", { count: 2 });
    expect(answer.status, show(answer)).toBe(400);
  });
});

describe("in-process use", () => {
  it("serves the same API through its fetch function, without a port", async () => {
    const simulator = createGraphSimulator({ apps: [{ appSecret: APP_SECRET, accessTokens: [TOKEN] }] });
    const proof = createHmac("sha256", APP_SECRET).update(TOKEN).digest("hex");
    const response = await simulator.fetch(`http://graph.simulator/v25.0/me?access_token=${TOKEN}&appsecret_proof=${proof}&fields=id,name`);
    const body = (await response.json()) as Record<string, unknown>;
    expect(response.status, show(body)).toBe(200);
    expect(body).toEqual({ id: expect.stringMatching(/^\d+$/), name: "System User 1" });
  });
});
