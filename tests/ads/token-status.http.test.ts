import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { describeResponse, type Admin, type ErrorEnvelope, type ErrorDetail } from "../helpers/harness";
import { TARGET_CONFIG, createAd, createAdsWorld, onboardedCustomer, type AdsWorld, type OnboardedCustomer } from "./support/ads-world";

/**
 * A token that the platform refuses after onboarding (Graph code 190): the refusal is recorded on the
 * onboarding, shown to the operator, and turns the customer's platform calls into 422 `missing` until the
 * operator sets a token the platform accepts.
 */
let world: AdsWorld;
beforeAll(async () => {
  world = await createAdsWorld();
});
afterAll(async () => world.close());

const account = (c: { id: string }) => `/v1/customers/${c.id}/ads/account`;

async function onboarding(c: { id: string }) {
  const r = await world.h.admin<Admin["getCustomerAdAccount"]>("GET", account(c));
  expect(r.status, describeResponse(r)).toBe(200);
  return r;
}

/** A new token for the customer's app, as the operator would issue one in Business Manager. */
function issueToken(c: OnboardedCustomer, suffix: string): string {
  const token = `EAAfresh${suffix}${"7".repeat(24)}`;
  world.sim.addApp({ appSecret: c.appSecret, accessTokens: [token] });
  return token;
}

describe("a token that expires after onboarding", () => {
  test("is recorded on the first refused call, shown to the operator, and blocks creates with details.missing until a new token is set", async () => {
    const c = await onboardedCustomer(world, "Token expiry");
    const ad = await createAd(world, c);
    const before = await onboarding(c);
    expect(before.json.data).toMatchObject({
      token_status: "verified",
      token_invalid_at: null,
      token_error_code: null,
      token_error_subcode: null,
      complete: true,
    });

    world.sim.expireToken(c.accessToken);
    const refusedAt = world.h.clock.now().toISOString();
    const first = await world.h.call("POST", "/ads/v1/adsets", { key: c.adsFull, body: { target: "main", daily_budget_cents: 2500 } });
    expect(first.status, "the call that meets the refusal answers as every later one").toBe(422);

    const shown = await onboarding(c);
    expect(shown.json.data, describeResponse(shown)).toMatchObject({
      access_token_set: true,
      token_status: "invalid",
      token_invalid_at: refusedAt,
      token_error_code: 190,
      token_error_subcode: 463,
      token_verified_at: before.json.data.token_verified_at,
      complete: false,
      missing: ["access_token"],
    });
    expect(shown.text).not.toContain(c.accessToken);

    world.sim.clearRequests();
    const blocked = [
      await world.h.call<ErrorEnvelope>("POST", "/ads/v1/adsets", { key: c.adsFull, body: { target: "main", daily_budget_cents: 2500 } }),
      await world.h.call<ErrorEnvelope>("POST", "/ads/v1/ads", { key: c.adsFull, body: { ad_set_id: ad.ad_set_id, creative_id: ad.creative_id } }),
      await world.h.call<ErrorEnvelope>("POST", "/ads/v1/media/images", { key: c.adsFull, body: { url: world.images.url("/square.jpg") } }),
      await world.h.call<ErrorEnvelope>("GET", `/ads/v1/status/${ad.id}`, { key: c.adsFull }),
      await world.h.call<ErrorEnvelope>("PATCH", `/ads/v1/ads/${ad.id}`, { key: c.adsFull, body: { status: "ACTIVE" } }),
    ];
    for (const r of blocked) {
      expect(r.status, describeResponse(r)).toBe(422);
      expect(r.json.error.details, describeResponse(r)).toEqual({ missing: ["access_token"] });
    }
    const target = await world.h.admin<ErrorEnvelope>("POST", `/v1/customers/${c.id}/ads/targets`, {
      key: "later",
      platform_campaign_id: world.sim.addCampaign(c.adAccountId),
      config: TARGET_CONFIG,
    });
    expect(target.status, describeResponse(target)).toBe(422);
    expect(target.json.error.details).toEqual({ missing: ["access_token"] });
    expect(world.sim.requests(), "the refused token is not sent again").toEqual([]);

    const replaced = await world.h.admin<Admin["updateCustomerAdAccount"]>("PATCH", account(c), { access_token: issueToken(c, "1") });
    expect(replaced.status, describeResponse(replaced)).toBe(200);
    expect(replaced.json.data).toMatchObject({
      token_status: "verified",
      token_invalid_at: null,
      token_error_code: null,
      token_error_subcode: null,
      complete: true,
      missing: [],
    });
    const works = await world.h.call("POST", "/ads/v1/adsets", { key: c.adsFull, body: { target: "main", daily_budget_cents: 2500 } });
    expect(works.status, describeResponse(works)).toBe(201);
  });

  test("sending the refused token again is a 422 on access_token and keeps the record", async () => {
    const c = await onboardedCustomer(world, "Token resent");
    world.sim.expireToken(c.accessToken);
    expect((await world.h.call("GET", "/ads/v1/media/images", { key: c.adsReporting })).status).toBe(422);
    const resent = await world.h.admin<ErrorEnvelope<ErrorDetail[]>>("PATCH", account(c), { access_token: c.accessToken });
    expect(resent.status, describeResponse(resent)).toBe(422);
    expect(resent.json.error.details[0].path).toBe("access_token");
    expect((await onboarding(c)).json.data.token_status).toBe("invalid");
  });

  test("keeps the first refusal's subcode and time; unrelated onboarding changes keep the record", async () => {
    const c = await onboardedCustomer(world, "Token password");
    world.sim.expireToken(c.accessToken, 460);
    const refusedAt = world.h.clock.now().toISOString();
    expect((await world.h.call("GET", "/ads/v1/media/images", { key: c.adsReporting })).status).toBe(422);
    world.h.clock.advance(60_000);
    const renamed = await world.h.admin<Admin["updateCustomerAdAccount"]>("PATCH", account(c), { legal_name: "Renamed GmbH" });
    expect(renamed.json.data, describeResponse(renamed)).toMatchObject({ token_status: "invalid", token_error_subcode: 460, token_invalid_at: refusedAt });
  });

  test("a refusal found while the operator verifies a target's campaign is recorded too", async () => {
    const c = await onboardedCustomer(world, "Token on target");
    world.sim.expireToken(c.accessToken);
    const r = await world.h.admin<ErrorEnvelope>("PATCH", `/v1/customers/${c.id}/ads/targets/main`, { status: "PAUSED" });
    expect(r.status, describeResponse(r)).toBe(422);
    expect(r.json.error.details).toEqual({ missing: ["access_token"] });
    expect(r.text).not.toContain(c.accessToken);
    expect((await onboarding(c)).json.data).toMatchObject({ token_status: "invalid", token_error_code: 190, token_error_subcode: 463 });
    expect((await world.h.admin<Admin["getCustomerAdTarget"]>("GET", `/v1/customers/${c.id}/ads/targets/main`)).json.data.status, "nothing was stored").toBe(
      "ACTIVE",
    );
  });

  test("the token never appears in a log line of this suite", () => {
    expect(world.h.logLines.join("\n")).not.toMatch(/EAAtest\d{24}|EAAfresh/);
  });
});
