import { createHmac } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ignoredPlatformNotifications } from "../../lib/ads/webhooks/platform-receiver";
import { adsStatusChanges } from "../../lib/db/schema";
import { describeResponse, type Ads, type Envelope } from "../helpers/harness";
import { createAd, createAdsWorld, onboardedCustomer, type AdsWorld, type OnboardedCustomer } from "./support/ads-world";

/**
 * Graph answers as Meta's docs show them, through the API: the simulator is told to answer in that shape
 * (its shape control), the real client reads it over HTTP.
 */
let world: AdsWorld;
let own: OnboardedCustomer;

beforeAll(async () => {
  world = await createAdsWorld();
  own = await onboardedCustomer(world, "Fidelity customer");
});
afterAll(async () => world.close());

describe("Graph fidelity through the API", () => {
  test("a DISAPPROVED ad answered without configured_status/status is read (200, not 502); the stored status stays", async () => {
    const ad = await createAd(world, own, { status: "ACTIVE" });
    world.sim.reshape(ad.platform_ad_id, {
      omit: ["configured_status", "status"],
      set: { effective_status: "DISAPPROVED", ad_review_feedback: { global: { ADULT_CONTENT: "Ads may not promote adult products." } } },
    });
    const r = await world.h.call<Ads["getAdStatus"]>("GET", `/ads/v1/status/${ad.id}`, { key: own.adsReporting });
    expect(r.status, describeResponse(r)).toBe(200);
    expect(r.json.data).toMatchObject({
      id: ad.id,
      status: "ACTIVE",
      effective_status: "DISAPPROVED",
      disapproval_reason: expect.stringContaining("ADULT_CONTENT"),
    });
  });
});

describe("platform webhooks: the signer found from the entry's ad account; only a bad signature refused", () => {
  const sign = (body: string, secret: string) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
  // The receiver's acknowledgement (an internal route outside the documents): the tests assert it whole.
  const deliver = (body: string, signature: string) =>
    world.h.call<Envelope<unknown>>("POST", "/api/platform/webhook", {
      rawBody: body,
      headers: { "content-type": "application/json", "x-hub-signature-256": signature },
    });
  const notification = (accountId: string, changes: { field: string; value: Record<string, unknown> }[]) =>
    JSON.stringify({ object: "ad_account", entry: [{ id: accountId, time: 1767225600, changes }] });

  test("kinds we do not act on (CAMPAIGN-level with_issues, creative_fatigue, an unknown ad) are acknowledged, logged and counted; nothing stored", async () => {
    const ad = await createAd(world, own, { status: "ACTIVE" });
    const before = ignoredPlatformNotifications();
    const body = notification(own.adAccountId, [
      { field: "with_issues_ad_objects", value: { id: own.campaignId, level: "CAMPAIGN", error_code: "567", error_summary: "Campaign issue" } },
      { field: "creative_fatigue", value: { ad_id: ad.platform_ad_id, fatigue_level: "HIGH" } },
      { field: "in_process_ad_objects", value: { id: "120299999999999999", level: "AD" } },
    ]);
    const logStart = world.h.logLines.length;
    const r = await deliver(body, sign(body, own.appSecret));
    expect(r.status, describeResponse(r)).toBe(200);
    expect(r.json.data).toEqual({
      named: 1,
      read: 0,
      changed: 0,
      ignored: { "with_issues_ad_objects:CAMPAIGN": 1, creative_fatigue: 1, unknown_ad: 1 },
    });
    const after = ignoredPlatformNotifications();
    expect((after.creative_fatigue ?? 0) - (before.creative_fatigue ?? 0)).toBe(1);
    expect((after["with_issues_ad_objects:CAMPAIGN"] ?? 0) - (before["with_issues_ad_objects:CAMPAIGN"] ?? 0)).toBe(1);
    const logged = world.h.logLines.slice(logStart).map((line) => JSON.parse(line) as { message: string; kinds?: unknown });
    expect(logged.find((line) => line.message.includes("not acted on"))?.kinds).toMatchObject({ creative_fatigue: 1 });
    expect(await world.h.db.select().from(adsStatusChanges).where(eq(adsStatusChanges.adId, ad.id))).toEqual([]);
  });

  test("a notification for an ad account we do not know is acknowledged and stores nothing; a bad signature for a known one is 401", async () => {
    const before = ignoredPlatformNotifications().unknown_account ?? 0;
    const stranger = notification("998877665544", [{ field: "with_issues_ad_objects", value: { id: "120211111111111111", level: "AD" } }]);
    const unknown = await deliver(stranger, sign(stranger, "some-other-app-secret"));
    expect(unknown.status, describeResponse(unknown)).toBe(200);
    expect(unknown.json.data).toEqual({ named: 0, read: 0, changed: 0, ignored: { unknown_account: 1 } });
    expect((ignoredPlatformNotifications().unknown_account ?? 0) - before).toBe(1);

    const ours = notification(own.adAccountId, [{ field: "creative_fatigue", value: {} }]);
    const forged = await deliver(ours, sign(ours, "not-the-app-secret"));
    expect(forged.status, describeResponse(forged)).toBe(401);
    const unsigned = await world.h.call("POST", "/api/platform/webhook", { rawBody: stranger, headers: { "content-type": "application/json" } });
    expect(unsigned.status, describeResponse(unsigned)).toBe(401);
  });

  test("an AD-level notification signed by the customer's app secret re-reads the ad (act_ prefixed account id too)", async () => {
    const ad = await createAd(world, own, { status: "ACTIVE" });
    world.sim.advance(60_000);
    const body = notification(`act_${own.adAccountId}`, [{ field: "in_process_ad_objects", value: { id: ad.platform_ad_id, level: "AD" } }]);
    const r = await deliver(body, sign(body, own.appSecret));
    expect(r.status, describeResponse(r)).toBe(200);
    expect(r.json.data).toEqual({ named: 1, read: 1, changed: 1 });
  });
});
