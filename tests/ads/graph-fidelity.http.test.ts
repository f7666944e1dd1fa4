import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { describeResponse } from "../helpers/harness";
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
    const r = await world.h.call("GET", `/ads/v1/status/${ad.id}`, { key: own.adsReporting });
    expect(r.status, describeResponse(r)).toBe(200);
    expect(r.json.data).toMatchObject({
      id: ad.id,
      status: "ACTIVE",
      effective_status: "DISAPPROVED",
      disapproval_reason: expect.stringContaining("ADULT_CONTENT"),
    });
  });
});
