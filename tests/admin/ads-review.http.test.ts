import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { describeResponse, type Admin, type Ads, type ErrorEnvelope, type ErrorDetail } from "../helpers/harness";
import { makeOperator, type TestOperator } from "../helpers/operators";
import { createAd, createAdsWorld, onboardedCustomer, type AdsWorld, type OnboardedCustomer } from "../ads/support/ads-world";

/**
 * A customer's ad sets and ads with their review state in the admin API: the Graph
 * simulator reviews real ads (one disapproved, one with issues, one approved, one still in review), a
 * support operator reads them through `…/ads/ads` and `…/ads/adsets`, filtered and paged.
 */
const REVIEW_MS = 30_000;
const UNKNOWN = "00000000-0000-4000-8000-000000000000";

let world: AdsWorld;
let support: TestOperator;
let c: OnboardedCustomer;
let other: OnboardedCustomer;
const ads: Record<"disapproved" | "issues" | "approved" | "pending", Ads["createAd"]["data"]> = {} as never;

const read = <T>(path: string, key = support.token) => world.h.call<T>("GET", `/admin${path}`, { key });

beforeAll(async () => {
  world = await createAdsWorld();
  support = await makeOperator(world.h, "support");
  c = await onboardedCustomer(world, "Review");
  other = await onboardedCustomer(world, "Review other");
  // The harness clock stands still; a second between ads gives them a creation order (newest first).
  const next = async (body: Record<string, unknown>) => {
    world.h.clock.advance(1000);
    return createAd(world, c, body);
  };
  ads.disapproved = await next({ status: "ACTIVE", message: "Miracle cure SIM_DISAPPROVE:TEXT_OVERLAY" });
  ads.issues = await next({ status: "ACTIVE", message: "Spring SIM_WITH_ISSUES" });
  ads.approved = await next({ status: "ACTIVE" });
  world.sim.advance(REVIEW_MS);
  // Status reads record what the platform says now (the poll and the platform's webhook do the same).
  for (const ad of [ads.disapproved, ads.issues, ads.approved]) {
    const live = await world.h.call("GET", `/ads/v1/status/${ad.id}`, { key: c.adsReporting });
    expect(live.status, describeResponse(live)).toBe(200);
  }
  ads.pending = await next({ status: "PAUSED" });
  await createAd(world, other, { status: "ACTIVE" });
}, 60_000);
afterAll(async () => world.close());

describe("a customer's ads with their review state", () => {
  test("each ad carries its ad set's name, review feedback, issues and last status change; support may read", async () => {
    const r = await read<Admin["listCustomerAds"]>(`/v1/customers/${c.id}/ads/ads`);
    expect(r.status, describeResponse(r)).toBe(200);
    expect(r.json.data.map((ad) => ad.id)).toEqual([ads.pending.id, ads.approved.id, ads.issues.id, ads.disapproved.id]);
    const byId = new Map(r.json.data.map((ad) => [ad.id, ad]));
    expect(byId.get(ads.disapproved.id)).toMatchObject({
      effective_status: "DISAPPROVED",
      disapproval_reason: "TEXT_OVERLAY: Simulated disapproval for policy TEXT_OVERLAY.",
      issues: null,
      ad_set: { id: ads.disapproved.ad_set_id, name: expect.stringMatching(/^\S+$/), status: "ACTIVE", effective_status: "ACTIVE" },
      last_status_change: {
        previous_status: "PENDING_REVIEW",
        effective_status: "DISAPPROVED",
        reason: "TEXT_OVERLAY: Simulated disapproval for policy TEXT_OVERLAY.",
        source: "status_read",
        at: expect.any(String),
      },
    });
    expect(byId.get(ads.issues.id)).toMatchObject({
      effective_status: "WITH_ISSUES",
      disapproval_reason: null,
      issues: "1815869: The ad could not be processed after it was saved: its creative references media that is no longer available.",
    });
    expect(byId.get(ads.approved.id)).toMatchObject({ effective_status: "ACTIVE", disapproval_reason: null, issues: null });
    expect(byId.get(ads.pending.id)).toMatchObject({ effective_status: expect.stringMatching(/PAUSED|PENDING_REVIEW/), last_status_change: null });
    // The ad set's name is what the customer's API shows for it.
    const adSets = await world.h.call<Ads["listAdSets"]>("GET", "/ads/v1/adsets", { key: c.adsReporting });
    for (const ad of r.json.data) expect(ad.ad_set.name).toBe(adSets.json.data.find((s) => s.id === ad.ad_set_id)?.name);
  });

  test("filters by effective status, configured status and ad set; pages with a cursor without repeats", async () => {
    const disapproved = await read<Admin["listCustomerAds"]>(`/v1/customers/${c.id}/ads/ads?effective_status=DISAPPROVED`);
    expect(disapproved.json.data.map((ad) => ad.id)).toEqual([ads.disapproved.id]);
    const paused = await read<Admin["listCustomerAds"]>(`/v1/customers/${c.id}/ads/ads?status=PAUSED`);
    expect(paused.json.data.map((ad) => ad.id)).toEqual([ads.pending.id]);
    const inSet = await read<Admin["listCustomerAds"]>(`/v1/customers/${c.id}/ads/ads?adset_id=${ads.issues.ad_set_id}`);
    expect(inSet.json.data.map((ad) => ad.id)).toEqual([ads.issues.id]);

    const seen: string[] = [];
    let after = "";
    for (let page = 0; page < 10; page++) {
      const r = await read<Admin["listCustomerAds"]>(`/v1/customers/${c.id}/ads/ads?limit=3${after ? `&after=${after}` : ""}`);
      expect(r.status, describeResponse(r)).toBe(200);
      seen.push(...r.json.data.map((ad) => ad.id));
      if (!r.json.paging.has_next) break;
      after = r.json.paging.after ?? "";
    }
    expect(seen).toEqual([ads.pending.id, ads.approved.id, ads.issues.id, ads.disapproved.id]);
  });

  test("another customer's ads and ad sets are never found; unknown customer 404; bad filters 422; a bad cursor 400", async () => {
    const mine = await read<Admin["listCustomerAds"]>(`/v1/customers/${other.id}/ads/ads`);
    expect(mine.json.data).toHaveLength(1);
    expect(mine.json.data.map((ad) => ad.id)).not.toContain(ads.disapproved.id);
    const foreignSet = await read<Admin["listCustomerAds"]>(`/v1/customers/${other.id}/ads/ads?adset_id=${ads.disapproved.ad_set_id}`);
    expect(foreignSet.json.data).toEqual([]);
    for (const path of [`/v1/customers/${UNKNOWN}/ads/ads`, `/v1/customers/${UNKNOWN}/ads/adsets`]) {
      const r = await read<ErrorEnvelope>(path);
      expect(r.status, describeResponse(r)).toBe(404);
    }
    const bad = await read<ErrorEnvelope<ErrorDetail[]>>(`/v1/customers/${c.id}/ads/ads?effective_status=disapproved&limit=500`);
    expect(bad.status, describeResponse(bad)).toBe(422);
    expect(bad.json.error.details.map((d) => d.path).sort()).toEqual(["effective_status", "limit"]);
    const cursor = await read<ErrorEnvelope>(`/v1/customers/${c.id}/ads/adsets?after=nonsense`);
    expect(cursor.status, describeResponse(cursor)).toBe(400);
  });
});

describe("a customer's ad sets", () => {
  test("each ad set counts its ads per effective status; filters by status and target; pages", async () => {
    const r = await read<Admin["listCustomerAdSets"]>(`/v1/customers/${c.id}/ads/adsets`);
    expect(r.status, describeResponse(r)).toBe(200);
    expect(r.json.data).toHaveLength(4);
    const byId = new Map(r.json.data.map((s) => [s.id, s]));
    expect(byId.get(ads.disapproved.ad_set_id)?.ads).toEqual({ total: 1, by_effective_status: { DISAPPROVED: 1 } });
    expect(byId.get(ads.issues.ad_set_id)?.ads).toEqual({ total: 1, by_effective_status: { WITH_ISSUES: 1 } });
    expect(byId.get(ads.approved.ad_set_id)).toMatchObject({ target: "main", status: "ACTIVE", ads: { total: 1, by_effective_status: { ACTIVE: 1 } } });

    const paused = await world.h.call("PATCH", `/ads/v1/adsets/${ads.approved.ad_set_id}`, { key: c.adsFull, body: { status: "PAUSED" } });
    expect(paused.status, describeResponse(paused)).toBe(200);
    const onlyPaused = await read<Admin["listCustomerAdSets"]>(`/v1/customers/${c.id}/ads/adsets?status=PAUSED`);
    expect(onlyPaused.json.data.map((s) => s.id)).toEqual([ads.approved.ad_set_id]);
    expect((await read<Admin["listCustomerAdSets"]>(`/v1/customers/${c.id}/ads/adsets?target=paused`)).json.data).toEqual([]);

    const first = await read<Admin["listCustomerAdSets"]>(`/v1/customers/${c.id}/ads/adsets?limit=3`);
    expect(first.json.paging.has_next).toBe(true);
    const second = await read<Admin["listCustomerAdSets"]>(`/v1/customers/${c.id}/ads/adsets?limit=3&after=${first.json.paging.after}`);
    expect([...first.json.data, ...second.json.data].map((s) => s.id)).toEqual(r.json.data.map((s) => s.id));
    expect(second.json.paging).toEqual({ after: null, has_next: false });
  });
});
