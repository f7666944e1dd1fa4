import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { sealPlainAccountFields } from "../../lib/ads/onboarding/service";
import { describeResponse, type Admin, type ErrorEnvelope, type Ads, type ErrorDetail } from "../helpers/harness";
import { TARGET_CONFIG, createAdsWorld, onboardedCustomer, type AdsWorld, type OnboardedCustomer } from "../ads/support/ads-world";

let world: AdsWorld;
beforeAll(async () => {
  world = await createAdsWorld();
});
afterAll(async () => world.close());

const UNKNOWN = "00000000-0000-4000-8000-000000000000";

function registerAccount(suffix: string) {
  const token = `EAAadmin${suffix}${"0".repeat(20)}`;
  const secret = `admin-secret-${suffix}`;
  const adAccount = `77${suffix}0000001`;
  world.sim.addApp({ appSecret: secret, accessTokens: [token] });
  world.sim.addAdAccount({ id: adAccount });
  return { token, secret, adAccount };
}

describe("ad account onboarding", () => {
  test("a new customer has nothing; every item is listed as missing", async () => {
    const c = await world.h.customer("Onboarding empty");
    const r = await world.h.admin<Admin["getCustomerAdAccount"]>("GET", `/v1/customers/${c.id}/ads/account`);
    expect(r.status, describeResponse(r)).toBe(200);
    expect(r.json.data).toMatchObject({
      access_token_set: false,
      app_secret_set: false,
      token_verified_at: null,
      complete: false,
      present: [],
      missing: ["access_token", "app_secret", "ad_account_id", "page_id", "instagram_account_id", "dsa_beneficiary", "dsa_payor", "legal_name"],
    });
  });

  test("token and secret are verified with the platform, sealed, and never returned", async () => {
    const c = await world.h.customer("Onboarding verified");
    const { token, secret, adAccount } = registerAccount("11");
    world.sim.clearRequests();
    const r = await world.h.admin<Admin["updateCustomerAdAccount"]>("PATCH", `/v1/customers/${c.id}/ads/account`, {
      access_token: token,
      app_secret: secret,
      ad_account_id: `act_${adAccount}`,
      page_id: "123456",
    });
    expect(r.status, describeResponse(r)).toBe(200);
    expect(r.json.data).toMatchObject({ access_token_set: true, app_secret_set: true, complete: false });
    expect(r.json.data.token_verified_at).toEqual(expect.any(String));
    expect(r.json.data.present).toEqual(["access_token", "app_secret", "ad_account_id", "page_id"]);
    expect(r.json.data.missing).toEqual(["instagram_account_id", "dsa_beneficiary", "dsa_payor", "legal_name"]);
    expect(r.text).not.toContain(token);
    expect(r.text).not.toContain(secret);
    const paths = world.sim.requests().map((request) => request.path);
    expect(paths).toEqual(["/v25.0/me", `/v25.0/act_${adAccount}`]);

    const stored = await world.h.db.execute(sql`select * from ads_accounts where customer_id = ${c.id}`);
    for (const plain of [token, secret, adAccount, "123456"]) expect(JSON.stringify(stored)).not.toContain(plain);
    const shown = await world.h.admin("GET", `/v1/customers/${c.id}/ads/account`);
    for (const plain of [token, secret, adAccount, "123456"]) expect(shown.text).not.toContain(plain);
  });

  test("account identifiers and legal details are sealed at rest and never returned; plain ones from older stores are sealed at start-up", async () => {
    const c = await onboardedCustomer(world, "Sealed details");
    const stored = async () =>
      (await world.h.db.execute(sql`select * from ads_accounts where customer_id = ${c.id}`)) as unknown as { rows: Record<string, unknown>[] };
    const before = (await stored()).rows[0] ?? {};
    const plain = [c.adAccountId, c.pageId, "Sealed details GmbH"];
    for (const value of plain) expect(JSON.stringify(before)).not.toContain(value);
    for (const column of ["ad_account_id", "page_id", "instagram_account_id", "dsa_beneficiary", "dsa_payor", "legal_name"])
      expect(String(before[column])).toMatch(/^v1\./);
    const shown = await world.h.admin<Admin["getCustomerAdAccount"]>("GET", `/v1/customers/${c.id}/ads/account`);
    expect(shown.json.data).toMatchObject({ complete: true, missing: [] });
    for (const value of plain) expect(shown.text).not.toContain(value);

    // A store written before the fields were sealed: plain values, sealed by the start-up pass, still usable.
    await world.h.db.execute(
      sql`update ads_accounts set ad_account_id = ${c.adAccountId}, page_id = ${c.pageId}, legal_name = 'Sealed details GmbH' where customer_id = ${c.id}`,
    );
    expect(await sealPlainAccountFields(world.h.deps)).toBeGreaterThanOrEqual(1);
    expect(await sealPlainAccountFields(world.h.deps)).toBe(0);
    const after = (await stored()).rows[0] ?? {};
    for (const value of plain) expect(JSON.stringify(after)).not.toContain(value);
    const images = await world.h.call("GET", "/ads/v1/media/images", { key: c.adsReporting });
    expect(images.status, describeResponse(images)).toBe(200);
  });

  test("a token the platform refuses is a 422 on access_token and nothing is stored", async () => {
    const c = await world.h.customer("Onboarding refused");
    const { secret, adAccount } = registerAccount("12");
    const r = await world.h.admin<ErrorEnvelope>("PATCH", `/v1/customers/${c.id}/ads/account`, {
      access_token: "EAAnot-a-known-token-000000",
      app_secret: secret,
      ad_account_id: adAccount,
    });
    expect(r.status, describeResponse(r)).toBe(422);
    expect(r.json.error.details).toEqual([{ path: "access_token", message: expect.stringContaining("190") }]);
    const after = await world.h.admin<Admin["getCustomerAdAccount"]>("GET", `/v1/customers/${c.id}/ads/account`);
    expect(after.json.data.access_token_set).toBe(false);
  });

  test("a wrong app secret fails the appsecret_proof check: 422", async () => {
    const c = await world.h.customer("Onboarding bad proof");
    const { token } = registerAccount("13");
    const r = await world.h.admin<ErrorEnvelope<ErrorDetail[]>>("PATCH", `/v1/customers/${c.id}/ads/account`, {
      access_token: token,
      app_secret: "wrong-secret-1234",
    });
    expect(r.status, describeResponse(r)).toBe(422);
    expect(r.json.error.details[0].path).toBe("access_token");
  });

  test("an ad account the token cannot reach is a 422 on ad_account_id", async () => {
    const c = await world.h.customer("Onboarding foreign account");
    const { token, secret } = registerAccount("14");
    const r = await world.h.admin<ErrorEnvelope<ErrorDetail[]>>("PATCH", `/v1/customers/${c.id}/ads/account`, {
      access_token: token,
      app_secret: secret,
      ad_account_id: "999999999",
    });
    expect(r.status, describeResponse(r)).toBe(422);
    expect(r.json.error.details[0].path).toBe("ad_account_id");
  });

  test("a token alone is stored but not verified until the app secret arrives", async () => {
    const c = await world.h.customer("Onboarding stepwise");
    const { token, secret } = registerAccount("15");
    const first = await world.h.admin<Admin["updateCustomerAdAccount"]>("PATCH", `/v1/customers/${c.id}/ads/account`, { access_token: token });
    expect(first.json.data, describeResponse(first)).toMatchObject({ access_token_set: true, token_verified_at: null });
    expect(first.json.data.missing).toContain("access_token");
    const second = await world.h.admin<Admin["updateCustomerAdAccount"]>("PATCH", `/v1/customers/${c.id}/ads/account`, { app_secret: secret });
    expect(second.json.data.token_verified_at, describeResponse(second)).toEqual(expect.any(String));
    const cleared = await world.h.admin<Admin["updateCustomerAdAccount"]>("PATCH", `/v1/customers/${c.id}/ads/account`, { legal_name: "X GmbH" });
    expect(cleared.json.data.token_verified_at, "an unrelated change keeps the verification").toEqual(second.json.data.token_verified_at);
    const nulled = await world.h.admin<Admin["updateCustomerAdAccount"]>("PATCH", `/v1/customers/${c.id}/ads/account`, { legal_name: null });
    expect(nulled.json.data.missing).toContain("legal_name");
  });

  test.each([
    ["unknown field", { page: "1" }],
    ["non-numeric page", { page_id: "my-page" }],
    ["malformed ad account", { ad_account_id: "acct-1" }],
  ])("422 for %s", async (_label, body) => {
    const c = await world.h.customer("Onboarding invalid");
    const r = await world.h.admin("PATCH", `/v1/customers/${c.id}/ads/account`, body);
    expect(r.status, describeResponse(r)).toBe(422);
  });

  test("unknown customer 404, no operator token 401", async () => {
    expect((await world.h.admin("GET", `/v1/customers/${UNKNOWN}/ads/account`)).status).toBe(404);
    expect((await world.h.admin("PATCH", `/v1/customers/${UNKNOWN}/ads/account`, { legal_name: "X" })).status).toBe(404);
    const r = await world.h.call("GET", `/admin/v1/customers/${UNKNOWN}/ads/account`);
    expect(r.status, describeResponse(r)).toBe(401);
  });
});

describe("targets", () => {
  const targets = (c: { id: string }) => `/v1/customers/${c.id}/ads/targets`;

  test("create, read, list and change a target; the configuration is completed with nulls", async () => {
    const c = await onboardedCustomer(world, "Targets");
    const spring = world.sim.addCampaign(c.adAccountId);
    const created = await world.h.admin<Admin["createCustomerAdTarget"]>("POST", targets(c), {
      key: "spring",
      platform_campaign_id: spring,
      config: TARGET_CONFIG,
    });
    expect(created.status, describeResponse(created)).toBe(201);
    expect(created.json.data).toMatchObject({
      key: "spring",
      status: "ACTIVE",
      platform_campaign_id: spring,
      config: { ...TARGET_CONFIG, bid_strategy: null, promoted_object: null, facebook_positions: null, instagram_positions: null, advantage_audience: 0 },
    });
    const got = await world.h.admin<Admin["getCustomerAdTarget"]>("GET", `${targets(c)}/spring`);
    expect(got.json.data, describeResponse(got)).toEqual(created.json.data);

    const paused = await world.h.admin<Admin["updateCustomerAdTarget"]>("PATCH", `${targets(c)}/spring`, {
      status: "PAUSED",
      config: { bid_strategy: "COST_CAP", geo_locations: { countries: ["CH"] } },
    });
    expect(paused.status, describeResponse(paused)).toBe(200);
    expect(paused.json.data).toMatchObject({
      status: "PAUSED",
      config: { bid_strategy: "COST_CAP", geo_locations: { countries: ["CH"] }, optimization_goal: "LINK_CLICKS" },
    });
    const cleared = await world.h.admin<Admin["updateCustomerAdTarget"]>("PATCH", `${targets(c)}/spring`, { config: { bid_strategy: null } });
    expect(cleared.json.data.config, describeResponse(cleared)).toMatchObject({ bid_strategy: null, geo_locations: { countries: ["CH"] } });

    const autumn = world.sim.addCampaign(c.adAccountId, { status: "PAUSED" });
    await world.h.admin("POST", targets(c), { key: "autumn", platform_campaign_id: autumn, status: "PAUSED", config: TARGET_CONFIG });
    const list = await world.h.admin<Admin["listCustomerAdTargets"]>("GET", targets(c));
    expect(
      list.json.data.map((t) => t.key),
      describeResponse(list),
    ).toEqual(["autumn", "main", "paused", "spring"]);
  });

  test("the campaign is read first and follows the target's status on the platform", async () => {
    const c = await onboardedCustomer(world, "Targets mirror");
    const campaign = world.sim.addCampaign(c.adAccountId);
    const upstreamStatus = () => world.sim.state.campaigns.get(campaign)?.status;
    world.sim.clearRequests();
    const created = await world.h.admin("POST", targets(c), { key: "mirror", platform_campaign_id: campaign, status: "PAUSED", config: TARGET_CONFIG });
    expect(created.status, describeResponse(created)).toBe(201);
    const calls = world.sim.requests();
    expect(
      calls.map((r) => `${r.method} ${r.path}`),
      JSON.stringify(calls),
    ).toEqual([`GET /v25.0/${campaign}`, `POST /v25.0/${campaign}`]);
    expect(calls[0]?.query.fields).toContain("account_id");
    expect(calls[1]?.form.status).toBe("PAUSED");
    expect(upstreamStatus()).toBe("PAUSED");

    const resumed = await world.h.admin<Admin["updateCustomerAdTarget"]>("PATCH", `${targets(c)}/mirror`, { status: "ACTIVE" });
    expect(resumed.json.data.status, describeResponse(resumed)).toBe("ACTIVE");
    expect(upstreamStatus()).toBe("ACTIVE");

    // Pausing the target stops delivery of what customers already run under it.
    const adSet = await world.h.call<Ads["createAdSet"]>("POST", "/ads/v1/adsets", { key: c.adsFull, body: { target: "mirror", daily_budget_cents: 2500 } });
    expect(adSet.status, describeResponse(adSet)).toBe(201);
    await world.h.admin("PATCH", `${targets(c)}/mirror`, { status: "PAUSED" });
    expect(upstreamStatus()).toBe("PAUSED");
    expect(world.sim.state.view(adSet.json.data.platform_adset_id)?.effective_status).toBe("CAMPAIGN_PAUSED");

    world.sim.clearRequests();
    const configOnly = await world.h.admin("PATCH", `${targets(c)}/mirror`, { config: { billing_event: "LINK_CLICKS" } });
    expect(configOnly.status, describeResponse(configOnly)).toBe(200);
    expect(world.sim.requests(), "a configuration change needs no platform call").toEqual([]);

    // Someone resumed the campaign on the platform directly: sending the status again re-aligns it.
    const drifted = world.sim.state.campaigns.get(campaign);
    if (drifted) drifted.status = "ACTIVE";
    const realigned = await world.h.admin("PATCH", `${targets(c)}/mirror`, { status: "PAUSED" });
    expect(realigned.status, describeResponse(realigned)).toBe(200);
    expect(upstreamStatus()).toBe("PAUSED");
  });

  test("a campaign matching the status already is only read", async () => {
    const c = await onboardedCustomer(world, "Targets in sync");
    const campaign = world.sim.addCampaign(c.adAccountId, { status: "PAUSED" });
    world.sim.clearRequests();
    const created = await world.h.admin("POST", targets(c), { key: "synced", platform_campaign_id: campaign, status: "PAUSED", config: TARGET_CONFIG });
    expect(created.status, describeResponse(created)).toBe(201);
    expect(world.sim.requests().map((r) => r.method)).toEqual(["GET"]);
  });

  const campaignCases: [string, (c: OnboardedCustomer) => Promise<string>][] = [
    ["an unknown id", async () => "120299999999999999"],
    ["a campaign of another ad account", async () => (await onboardedCustomer(world, "Targets foreign")).campaignId],
    [
      "an archived campaign",
      async (c) => {
        const id = world.sim.addCampaign(c.adAccountId);
        const campaign = world.sim.state.campaigns.get(id);
        if (campaign) campaign.status = "ARCHIVED";
        return id;
      },
    ],
    ["a campaign holding the budget", async (c) => world.sim.addCampaign(c.adAccountId, { dailyBudget: 10_000 })],
  ];

  test.each(campaignCases)("422 on platform_campaign_id for %s; nothing is stored or changed", async (_label, pick) => {
    const c = await onboardedCustomer(world, "Targets bad campaign");
    const campaign = await pick(c);
    const created = await world.h.admin<ErrorEnvelope>("POST", targets(c), { key: "bad", platform_campaign_id: campaign, config: TARGET_CONFIG });
    expect(created.status, describeResponse(created)).toBe(422);
    expect(created.json.error.details).toEqual([{ path: "platform_campaign_id", message: expect.any(String) }]);
    expect((await world.h.admin("GET", `${targets(c)}/bad`)).status).toBe(404);

    const moved = await world.h.admin("PATCH", `${targets(c)}/main`, { platform_campaign_id: campaign, status: "PAUSED" });
    expect(moved.status, describeResponse(moved)).toBe(422);
    const main = await world.h.admin<Admin["getCustomerAdTarget"]>("GET", `${targets(c)}/main`);
    expect(main.json.data, describeResponse(main)).toMatchObject({ platform_campaign_id: c.campaignId, status: "ACTIVE" });
    expect(world.sim.state.campaigns.get(c.campaignId)?.status).toBe("ACTIVE");
  });

  test("the campaign is verified with the customer's credentials: without them 422 details.missing", async () => {
    const c = await world.h.customer("Targets not onboarded");
    const r = await world.h.admin<ErrorEnvelope>("POST", targets(c), { key: "early", platform_campaign_id: "120200000000000900", config: TARGET_CONFIG });
    expect(r.status, describeResponse(r)).toBe(422);
    expect(r.json.error.details).toEqual({ missing: ["access_token", "app_secret", "ad_account_id"] });
    expect((await world.h.admin<Admin["listCustomerAdTargets"]>("GET", targets(c))).json.data).toEqual([]);
  });

  test("a key taken twice is 409 before any platform call; another customer may use the key", async () => {
    const c = await onboardedCustomer(world, "Targets dup");
    const body = { key: "dup", platform_campaign_id: world.sim.addCampaign(c.adAccountId), config: TARGET_CONFIG };
    expect((await world.h.admin("POST", targets(c), body)).status).toBe(201);
    world.sim.clearRequests();
    const again = await world.h.admin("POST", targets(c), body);
    expect(again.status, describeResponse(again)).toBe(409);
    expect(world.sim.requests()).toEqual([]);
    const other = await onboardedCustomer(world, "Targets other");
    const otherCreate = await world.h.admin("POST", targets(other), { ...body, platform_campaign_id: other.campaignId });
    expect(otherCreate.status, describeResponse(otherCreate)).toBe(201);
  });

  test.each([
    ["no location", { ...TARGET_CONFIG, geo_locations: {} }],
    ["lower-case goal", { ...TARGET_CONFIG, optimization_goal: "link_clicks" }],
    ["unknown platform", { ...TARGET_CONFIG, publisher_platforms: ["myspace"] }],
    ["unknown field", { ...TARGET_CONFIG, budget: 5 }],
  ])("422 for a configuration with %s", async (_label, config) => {
    const c = await world.h.customer("Targets invalid");
    const r = await world.h.admin("POST", targets(c), { key: "bad", platform_campaign_id: "1", config });
    expect(r.status, describeResponse(r)).toBe(422);
  });

  test("400 without a configuration, 422 for a bad key, 404 for unknown targets and customers", async () => {
    const c = await world.h.customer("Targets errors");
    expect((await world.h.admin("POST", targets(c), { key: "x", platform_campaign_id: "1" })).status).toBe(400);
    expect((await world.h.admin("POST", targets(c), { key: "Has Space", platform_campaign_id: "1", config: TARGET_CONFIG })).status).toBe(422);
    expect((await world.h.admin("GET", `${targets(c)}/nope`)).status).toBe(404);
    expect((await world.h.admin("PATCH", `${targets(c)}/nope`, { status: "PAUSED" })).status).toBe(404);
    expect((await world.h.admin("POST", `/v1/customers/${UNKNOWN}/ads/targets`, { key: "x", platform_campaign_id: "1", config: TARGET_CONFIG })).status).toBe(
      404,
    );
  });
});

describe("naming convention", () => {
  test("defaults, a custom pattern, and null back to the default", async () => {
    const c = await world.h.customer("Naming");
    const defaults = await world.h.admin<Admin["getCustomerAdNaming"]>("GET", `/v1/customers/${c.id}/ads/naming`);
    expect(defaults.json.data, describeResponse(defaults)).toEqual({
      adset_pattern: "{target}-{date}-{seq}",
      ad_pattern: "{adset}-ad{seq}",
      adset_pattern_is_default: true,
      ad_pattern_is_default: true,
    });
    const set = await world.h.admin<Admin["updateCustomerAdNaming"]>("PATCH", `/v1/customers/${c.id}/ads/naming`, { adset_pattern: "acme_{target}_{seq}" });
    expect(set.json.data, describeResponse(set)).toMatchObject({
      adset_pattern: "acme_{target}_{seq}",
      adset_pattern_is_default: false,
      ad_pattern_is_default: true,
    });
    const reset = await world.h.admin<Admin["updateCustomerAdNaming"]>("PATCH", `/v1/customers/${c.id}/ads/naming`, { adset_pattern: null });
    expect(reset.json.data.adset_pattern_is_default).toBe(true);
  });

  test.each([
    ["no {seq}", { adset_pattern: "{target}-{date}" }],
    ["an unknown token", { ad_pattern: "{adset}-{seq}-{campaign}" }],
    ["{adset} in an ad set pattern", { adset_pattern: "{adset}-{seq}" }],
  ])("422 for %s", async (_label, body) => {
    const c = await world.h.customer("Naming invalid");
    const r = await world.h.admin("PATCH", `/v1/customers/${c.id}/ads/naming`, body);
    expect(r.status, describeResponse(r)).toBe(422);
  });
});
