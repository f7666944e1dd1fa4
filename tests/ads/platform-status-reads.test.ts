import { describe, expect, test } from "vitest";
import { ManualClock } from "../../lib/base/clock";
import { appSecretProof, createGraphClient, MAX_IDS_PER_READ, PlatformError } from "../../lib/ads/platform";
import { createGraphSimulator } from "../../lib/ads/platform/simulator/app";
import { SIM_ISSUE } from "../../lib/ads/platform/simulator/markers";
import type { SimCreative } from "../../lib/ads/platform/simulator/state";

/**
 * The batched status read (`GET /?ids=…&fields=…`) through the real client against the simulator, and the
 * simulator's post-processing phase (IN_PROCESS, then review or WITH_ISSUES with `issues_info`).
 */
const APP_SECRET = "status-reads-app-secret";
const TOKEN = "EAAstatusReadsToken000111222333444";

function world() {
  const clock = new ManualClock("2026-05-04T08:00:00.000Z");
  const simulator = createGraphSimulator({
    clock,
    apps: [{ appSecret: APP_SECRET, accessTokens: [TOKEN] }],
    adAccounts: [{ id: "900900900" }],
    reviewDelayMs: 30_000,
    processingDelayMs: 5_000,
  });
  const session = createGraphClient({ baseUrl: "http://graph.test/v25.0", fetch: simulator.fetch, maxAttempts: 1 }).connect({
    accessToken: TOKEN,
    appSecret: APP_SECRET,
  });
  const { state } = simulator.controls;
  /** An ad straight into the simulator's store, its creative's copy carrying `copy`. */
  const ad = (copy = "Summer sale") => {
    const creativeId = state.newId();
    const creative: SimCreative = {
      id: creativeId,
      accountId: "900900900",
      name: "c",
      objectStorySpec: { page_id: "1", link_data: { message: copy } } as SimCreative["objectStorySpec"],
      createdMs: state.now(),
    };
    state.creatives.set(creativeId, creative);
    const id = state.newId();
    const processing = state.processingFor(creative, state.now());
    state.ads.set(id, {
      id,
      accountId: "900900900",
      adsetId: "0",
      creativeId,
      name: "ad",
      status: "ACTIVE",
      reviewStartMs: processing?.endsMs ?? state.now(),
      processing,
      createdMs: state.now(),
      updatedMs: state.now(),
    });
    return id;
  };
  return { clock, simulator, session, ad };
}

describe("batched status reads", () => {
  test("one call answers up to 50 ads keyed by id, with the requested status fields", async () => {
    const { simulator, session, ad } = world();
    const ids = Array.from({ length: MAX_IDS_PER_READ }, () => ad());
    simulator.controls.clearRequests();
    const views = await session.getAds(ids);
    expect([...views.keys()].sort()).toEqual([...ids].sort());
    expect(views.get(ids[0] ?? "")).toEqual({ id: ids[0], configured_status: "ACTIVE", effective_status: "PENDING_REVIEW" });
    const requests = simulator.controls.requests();
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ method: "GET", path: "/v25.0" });
    expect(requests[0]?.query.ids?.split(",")).toHaveLength(50);
    expect(requests[0]?.query.fields).toBe("id,effective_status,configured_status,status,ad_review_feedback,issues_info");
  });

  test("more than 50 ids are refused by both sides; an unknown id fails the whole read with Graph's 803", async () => {
    const { simulator, session, ad } = world();
    const ids = Array.from({ length: 51 }, () => ad());
    await expect(session.getAds(ids)).rejects.toThrow(RangeError);
    const raw = await simulator.fetch(
      `http://graph.test/v25.0/?ids=${ids.join(",")}&fields=effective_status&access_token=${TOKEN}&appsecret_proof=${appSecretProof(TOKEN, APP_SECRET)}`,
    );
    expect(raw.status).toBe(400);
    expect(((await raw.json()) as { error: { code: number; message: string } }).error).toMatchObject({
      code: 100,
      message: expect.stringContaining("Maximum: 50"),
    });

    const error = await session.getAds([ids[0] ?? "", "120210999999999999"]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ code: 803 });
    expect((error as PlatformError).message).toContain("120210999999999999");
  });

  test("SIM_IN_PROCESS: IN_PROCESS, then review; SIM_WITH_ISSUES: IN_PROCESS, then WITH_ISSUES with issues_info and no review", async () => {
    const { clock, session, ad } = world();
    const reviewed = ad("Spring SIM_IN_PROCESS");
    const broken = ad("Spring SIM_WITH_ISSUES");
    const plain = ad();
    const read = async () =>
      Object.fromEntries([...(await session.getAds([reviewed, broken, plain])).entries()].map(([id, view]) => [id, view.effective_status]));
    expect(await read()).toEqual({ [reviewed]: "IN_PROCESS", [broken]: "IN_PROCESS", [plain]: "PENDING_REVIEW" });
    clock.advance(5_000);
    expect(await read()).toEqual({ [reviewed]: "PENDING_REVIEW", [broken]: "WITH_ISSUES", [plain]: "PENDING_REVIEW" });
    expect((await session.getAd(broken)).issues_info).toEqual([SIM_ISSUE]);
    clock.advance(30_000);
    expect(await read()).toEqual({ [reviewed]: "ACTIVE", [broken]: "WITH_ISSUES", [plain]: "ACTIVE" });
  });
});
