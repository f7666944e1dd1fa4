import { describe, expect, test } from "vitest";
import { ManualClock } from "../../lib/base/clock";
import { createLogger } from "../../lib/base/logger";
import { createGraphClient } from "../../lib/ads/platform";
import { createGraphSimulator } from "../../lib/ads/platform/simulator/app";
import type { SimCreative } from "../../lib/ads/platform/simulator/state";

/**
 * Graph answers as Meta's docs show them, produced by the simulator's shape controls and read through the
 * real client over the simulator's HTTP interface: parsed item by item, an unusable item logged with its
 * id and left out, never the reason a batch or a page fails.
 */
const APP_SECRET = "fidelity-app-secret";
const TOKEN = "EAAfidelityToken000111222333444555";
const ACCOUNT = "700700700";

function world() {
  const clock = new ManualClock("2026-05-04T08:00:00.000Z");
  const simulator = createGraphSimulator({ clock, apps: [{ appSecret: APP_SECRET, accessTokens: [TOKEN] }], adAccounts: [{ id: ACCOUNT }], reviewDelayMs: 0 });
  const lines: string[] = [];
  const client = createGraphClient({
    baseUrl: "http://graph.test/v25.0",
    fetch: simulator.fetch,
    maxAttempts: 1,
    logger: createLogger("debug", (line) => lines.push(line)),
  });
  const session = client.connect({ accessToken: TOKEN, appSecret: APP_SECRET }, {}, { adAccountId: ACCOUNT });
  const { state } = simulator.controls;
  const ad = () => {
    const creativeId = state.newId();
    state.creatives.set(creativeId, {
      id: creativeId,
      accountId: ACCOUNT,
      name: "c",
      objectStorySpec: { page_id: "1", link_data: { message: "Sale" } } as SimCreative["objectStorySpec"],
      createdMs: state.now(),
    });
    const id = state.newId();
    state.ads.set(id, {
      id,
      accountId: ACCOUNT,
      adsetId: "0",
      creativeId,
      name: "ad",
      status: "ACTIVE",
      reviewStartMs: state.now(),
      createdMs: state.now(),
      updatedMs: state.now(),
    });
    return id;
  };
  /** The control over HTTP, as a test in another process would use it. */
  const control = async (path: string, body: unknown) => {
    const response = await simulator.fetch(`http://graph.test/__sim/${path}`, {
      method: "POST",
      body: JSON.stringify(body),
      headers: { "content-type": "application/json" },
    });
    expect(response.status).toBe(200);
  };
  const logged = (message: string) =>
    lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => entry.msg === message || entry.message === message);
  return { simulator, client, session, ad, control, logged };
}

const DISAPPROVED_AS_DOCUMENTED = {
  omit: ["configured_status", "status"],
  set: { effective_status: "DISAPPROVED", ad_review_feedback: { global: { ADULT_CONTENT: "Ads may not promote adult products." } } },
};

describe("Graph answers as documented, item by item", () => {
  test("a DISAPPROVED ad without configured_status/status reads, singly and batched; its configured status is unknown", async () => {
    const { session, ad, control } = world();
    const disapproved = ad();
    const plain = ad();
    await control(`objects/${disapproved}/shape`, DISAPPROVED_AS_DOCUMENTED);
    const expected = { id: disapproved, effective_status: "DISAPPROVED", ad_review_feedback: DISAPPROVED_AS_DOCUMENTED.set.ad_review_feedback };
    expect(await session.getAd(disapproved)).toEqual(expected);
    const views = await session.getAds([disapproved, plain]);
    expect(views.get(disapproved)).toEqual(expected);
    expect(views.get(plain)).toEqual({ id: plain, configured_status: "ACTIVE", effective_status: "ACTIVE" });
  });

  test("in a batched read an item we cannot use is logged with its id and left out; the others are read", async () => {
    const { session, ad, control, logged } = world();
    const [broken, good] = [ad(), ad()];
    await control(`objects/${broken}/shape`, { omit: ["configured_status", "status", "effective_status"] });
    const views = await session.getAds([broken ?? "", good ?? ""]);
    expect([...views.keys()]).toEqual([good]);
    expect(logged("graph ad status answer unusable; skipped")).toEqual([expect.objectContaining({ ad_id: broken })]);
    // Read alone, the same answer is an error of the call, as before.
    await expect(session.getAd(broken ?? "")).rejects.toThrow(/unexpected shape/);
  });

  test("insights rows at another level (campaign rows without ad_id) are ignored row by row, logged and counted", async () => {
    const { simulator, session, client, ad, control, logged } = world();
    const delivering = simulator.controls.state.ads.get(ad());
    if (delivering) delivering.createdMs -= 3 * 86_400_000;
    const day = "2026-05-03";
    const baseline = await session.getDailyAdInsights(ACCOUNT, { since: day, until: day, breakdowns: [] });
    expect(baseline.length).toBeGreaterThan(0);
    await control(`ad-accounts/act_${ACCOUNT}/insights-rows`, {
      rows: [
        { campaign_id: "120200000000000001", date_start: day, date_stop: day, impressions: "10", spend: "1.00" },
        { campaign_id: "120200000000000002", date_start: day, date_stop: day, impressions: "20", spend: "2.00" },
      ],
    });
    const rows = await session.getDailyAdInsights(ACCOUNT, { since: day, until: day, breakdowns: [] });
    expect(rows).toEqual(baseline);
    expect(client.skippedInsightRows()).toBe(2);
    expect(logged("graph insights rows unusable; skipped")).toEqual([
      expect.objectContaining({
        skipped: 2,
        sample: [expect.objectContaining({ campaign_id: "120200000000000001" }), expect.objectContaining({ campaign_id: "120200000000000002" })],
      }),
    ]);
  });

  test("the shape control refuses an unknown object; a reset clears the shapes", async () => {
    const { simulator, session, ad, control } = world();
    const missing = await simulator.fetch("http://graph.test/__sim/objects/999999/shape", {
      method: "POST",
      body: "{}",
      headers: { "content-type": "application/json" },
    });
    expect(missing.status).toBe(404);
    const id = ad();
    await control(`objects/${id}/shape`, DISAPPROVED_AS_DOCUMENTED);
    expect((await session.getAd(id)).configured_status).toBeUndefined();
    simulator.controls.state.shapes.clear();
    expect((await session.getAd(id)).configured_status).toBe("ACTIVE");
  });
});
