import { createHmac } from "node:crypto";
import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import { eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { platformVerifyToken } from "../../lib/ads/webhooks/platform-receiver";
import { createLocalQueue } from "../../lib/adapters/queue";
import { createRootApp } from "../../lib/runtime";
import { ManualClock } from "../../lib/base/clock";
import { adsStatusChanges, adsWebhookDeliveries } from "../../lib/db/schema";
import type { AdsWebhookEvent } from "@mail-ads/client";
import { createHarness, describeResponse, type Harness, type Ads, type ErrorEnvelope, type FieldIssue, type CronRun, type Envelope } from "../helpers/harness";
import { startHttpsReceiver, verifyStripeStyle, type ReceivedRequest } from "../helpers/https-receiver";
import { startImageServer, type ImageServer } from "./support/image-server";
import { createAd, graphControls, onboardedCustomer, type AdsWorld, type OnboardedCustomer } from "./support/ads-world";

/**
 * `ad.status_changed` end to end: the real app over HTTP, the Graph simulator reviewing ads and posting
 * signed ad-account webhooks to our receiver, the status poll cron, and a customer's https receiver on
 * loopback (self-signed certificate, trusted through the test-only OUTBOUND_TRUSTED_CA) that verifies
 * every delivery as a third party following the documented scheme would.
 */
type Delivery = ReceivedRequest & { verified: boolean; timestamp: number; json: AdsWebhookEvent };

const CRON_SECRET = "cron-secret-for-ads-webhook-tests-0123";
const REVIEW_MS = 30_000;
// A clock of its own era: the poll and the retry sweep only see this file's ads and deliveries, never
// another test file's (CI runs the HTTP suite in parallel against one PostgreSQL database).
const clock = new ManualClock("2003-06-01T09:00:00.000Z");

let world: AdsWorld;
let h: Harness;
let images: ImageServer;
let receiver: Awaited<ReturnType<typeof startHttpsReceiver>>;
let ourServer: ServerType;
let ourOrigin = "";
const secrets = new Map<string, string>();
const answers = new Map<string, number>();
const deliveries: Delivery[] = [];

beforeAll(async () => {
  images = await startImageServer();
  receiver = await startHttpsReceiver("portal.test", (request) => {
    const signature = String(request.headers["x-service-signature"] ?? "");
    const { verified, timestamp } = verifyStripeStyle(secrets.get(request.path) ?? "", request.body, signature, clock.now().getTime() / 1000);
    deliveries.push({ ...request, verified, timestamp, json: JSON.parse(request.body) as AdsWebhookEvent });
    return { status: answers.get(request.path) ?? 200 };
  });
  // Two test certificates, one PEM text: the image server's and the receiver's.
  h = await createHarness({ clock, env: { ALLOW_LOOPBACK_OUTBOUND: "true", OUTBOUND_TRUSTED_CA: `${images.ca}\n${receiver.ca}`, CRON_SECRET } });
  world = { h, images, sim: graphControls(h), close: async () => {} };
  // The platform posts to our receiver over loopback, as in `npm start`; subscribing makes the handshake.
  const port = await new Promise<number>((resolve) => {
    ourServer = serve({ fetch: h.root.fetch, port: 0, hostname: "127.0.0.1" }, (info: AddressInfo) => resolve(info.port));
  });
  ourOrigin = `http://127.0.0.1:${port}`;
  await world.sim.subscribeWebhooks({ url: `${ourOrigin}/api/platform/webhook`, verifyToken: platformVerifyToken(h.deps) });
});
afterAll(async () => {
  await new Promise((resolve) => {
    ourServer.close(resolve);
    // The simulator's keep-alive connections would otherwise hold close() open.
    if ("closeAllConnections" in ourServer) ourServer.closeAllConnections();
  });
  await h.close();
  await receiver.close();
  await images.close();
});

async function customerWithHook(name: string): Promise<OnboardedCustomer & { hook: { id: string; signing_secret: string }; path: string }> {
  const c = await onboardedCustomer(world, name);
  await h.admin("PATCH", `/v1/customers/${c.id}`, { ads: { stage: "scale" } });
  const path = `/hooks/${c.id}`;
  const r = await h.call<Ads["createAdsWebhook"]>("POST", "/ads/v1/webhooks", { key: c.adsFull, body: { url: `${receiver.origin}${path}` } });
  expect(r.status, describeResponse(r)).toBe(201);
  secrets.set(path, r.json.data.signing_secret);
  return { ...c, hook: r.json.data, path };
}

const cron = async (name: string) => {
  const r = await h.call<CronRun>("GET", `/api/cron/${name}`, { headers: { authorization: `Bearer ${CRON_SECRET}` } });
  expect(r.status, describeResponse(r)).toBe(200);
  return r.json.data.result as Record<string, number>;
};
/** One poll a minute later (an ad read within the last 50 s is not polled again). */
const poll = async () => {
  clock.advance(60_000);
  return cron("ads-status-poll");
};
const eventsAt = (path: string) => deliveries.filter((d) => d.path === path);
/**
 * Every delivery has finished its current attempt: delivered, failed, or failed and waiting for its retry
 * (the queue's delayed retry messages are not waited for; the sweep stands in for them).
 */
async function settled(): Promise<void> {
  for (;;) {
    const rows = await h.db
      .select({ status: adsWebhookDeliveries.status, attempts: adsWebhookDeliveries.attempts, lastError: adsWebhookDeliveries.lastError })
      .from(adsWebhookDeliveries);
    if (rows.every((row) => row.status !== "pending" || (row.attempts > 0 && row.lastError !== null))) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
/**
 * Every delivery to `webhookIds` delivered: a first attempt can fail on a loaded machine (56 TLS handshakes at
 * once against a receiver in this process passed the 5 s connect limit in a CI run), so the retry sweep is run
 * for what failed, as production's cron does, until each is delivered (bounded: 10 rounds).
 */
async function deliveredAll(webhookIds: string[]): Promise<void> {
  const rowsOf = () =>
    h.db
      .select({
        id: adsWebhookDeliveries.id,
        status: adsWebhookDeliveries.status,
        attempts: adsWebhookDeliveries.attempts,
        nextAttemptAt: adsWebhookDeliveries.nextAttemptAt,
      })
      .from(adsWebhookDeliveries)
      .where(inArray(adsWebhookDeliveries.webhookId, webhookIds));
  for (let round = 0; round < 10; round++) {
    await settled();
    const open = (await rowsOf()).filter((row) => row.status !== "delivered");
    if (open.length === 0) return;
    clock.set(new Date(Math.max(clock.now().getTime(), ...open.map((row) => row.nextAttemptAt.getTime()))));
    await cron("ads-webhook-retries");
    const before = new Map(open.map((row) => [row.id, row.attempts]));
    await vi.waitFor(async () => expect((await rowsOf()).every((row) => row.attempts > (before.get(row.id) ?? -1) || row.status === "delivered")).toBe(true), {
      timeout: 60_000,
      interval: 20,
    });
  }
  throw new Error("deliveries still open after 10 retry rounds");
}
const changesOf = (adId: string) => h.db.select().from(adsStatusChanges).where(eq(adsStatusChanges.adId, adId));

describe("registration", () => {
  test("POST answers the signing secret once (events default to ad.status_changed); GET lists health without it; DELETE removes; another account's id is 404", async () => {
    const c = await onboardedCustomer(world, "Registration");
    const created = await h.call<Ads["createAdsWebhook"]>("POST", "/ads/v1/webhooks", {
      key: c.adsFull,
      body: { url: "https://portal.example.com/hooks/ads" },
    });
    expect(created.status, describeResponse(created)).toBe(201);
    expect(created.json.data).toMatchObject({ url: "https://portal.example.com/hooks/ads", events: ["ad.status_changed"], active: true, status: "active" });
    expect(created.json.data.signing_secret).toMatch(/^whsec_[A-Za-z0-9_-]{40,}$/);

    const list = await h.call<Ads["listAdsWebhooks"]>("GET", "/ads/v1/webhooks", { key: c.adsReporting });
    expect(list.status, describeResponse(list)).toBe(200);
    expect(list.json.data).toEqual([
      {
        id: created.json.data.id,
        url: "https://portal.example.com/hooks/ads",
        events: ["ad.status_changed"],
        status: "active",
        active: true,
        last_delivery_at: null,
        failure_count: 0,
        deactivated_at: null,
        deactivation_reason: null,
        created_at: clock.now().toISOString(),
      },
    ]);
    expect(list.text).not.toContain(created.json.data.signing_secret);

    const other = await onboardedCustomer(world, "Other");
    expect((await h.call<Ads["listAdsWebhooks"]>("GET", "/ads/v1/webhooks", { key: other.adsReporting })).json.data).toEqual([]);
    expect((await h.call("DELETE", `/ads/v1/webhooks/${created.json.data.id}`, { key: other.adsFull })).status).toBe(404);
    const deleted = await h.call<Ads["deleteAdsWebhook"]>("DELETE", `/ads/v1/webhooks/${created.json.data.id}`, { key: c.adsFull });
    expect(deleted.status, describeResponse(deleted)).toBe(200);
    expect(deleted.json.data).toEqual({ id: created.json.data.id, deleted: true });
    expect((await h.call<Ads["listAdsWebhooks"]>("GET", "/ads/v1/webhooks", { key: c.adsReporting })).json.data).toEqual([]);
  });

  test("http and private URLs are 422 on url, unknown events 422, a missing url 400, reporting keys may not write (403), no key 401", async () => {
    const c = await onboardedCustomer(world, "Validation");
    const post = <T = Ads["createAdsWebhook"]>(body: unknown, key: string | null = c.adsFull) => h.call<T>("POST", "/ads/v1/webhooks", { key, body });
    for (const url of [
      "http://portal.example.com/hook",
      "https://user:pw@portal.example.com/hook",
      "https://10.0.0.8/hook",
      "https://169.254.169.254/latest",
    ]) {
      const r = await post<ErrorEnvelope>({ url });
      expect(r.status, `${url}: ${describeResponse(r)}`).toBe(422);
      expect(r.json.error.details).toEqual([{ field: "url", issue: expect.any(String) }]);
    }
    const unknown = await post<ErrorEnvelope<FieldIssue[]>>({ url: "https://portal.example.com/hook", events: ["ad.created"] });
    expect(unknown.status, describeResponse(unknown)).toBe(422);
    expect(unknown.json.error.details[0].field).toMatch(/^events/);
    expect((await post({ events: ["ad.status_changed"] })).status).toBe(400);
    expect((await post({ url: "https://portal.example.com/hook" }, c.adsReporting)).status).toBe(403);
    expect((await post({ url: "https://portal.example.com/hook" }, null)).status).toBe(401);
  });
});

describe("detection and delivery", () => {
  test("PENDING_REVIEW → ACTIVE found by the poll (batched read) reaches the receiver exactly once, verified; the cached status follows", async () => {
    const c = await customerWithHook("Approved");
    const ad = await createAd(world, c, { status: "ACTIVE", message: "Summer sale: 30 % off." });
    expect(ad.effective_status).toBe("PENDING_REVIEW");

    world.sim.clearRequests();
    expect(await poll()).toMatchObject({ changed: 0 });
    const reads = world.sim.requests().filter((r) => r.method === "GET" && r.path === "/v25.0");
    expect(reads.length).toBeGreaterThanOrEqual(1);
    expect(reads[0]?.query.ids?.split(",")).toContain(ad.platform_ad_id);
    expect(reads[0]?.query.fields).toContain("effective_status");
    expect(reads[0]?.query.fields).toContain("ad_review_feedback");

    world.sim.advance(REVIEW_MS);
    expect((await poll()).changed).toBeGreaterThanOrEqual(1);
    await settled();
    // Seen again by the next poll and by a live read: nothing new to report.
    await poll();
    const live = await h.call<Ads["getAdStatus"]>("GET", `/ads/v1/status/${ad.id}`, { key: c.adsReporting });
    expect(live.json.data, describeResponse(live)).toMatchObject({ effective_status: "ACTIVE", disapproval_reason: null });
    await settled();

    const got = eventsAt(c.path);
    expect(got).toHaveLength(1);
    const [event] = got;
    expect(event?.verified).toBe(true);
    expect(event?.headers["x-service-event"]).toBe("ad.status_changed");
    expect(event?.headers["x-service-delivery"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(event?.json).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: "ad.status_changed",
      created: Math.floor(clock.now().getTime() / 1000) - 60,
      data: { ad_id: ad.id, effective_status: "ACTIVE", reason: null, previous_status: "PENDING_REVIEW" },
    });
    const listed = await h.call<Ads["listAds"]>("GET", "/ads/v1/ads", { key: c.adsReporting });
    expect(listed.json.data.find((x: { id: string }) => x.id === ad.id)).toMatchObject({ effective_status: "ACTIVE" });
    expect(await changesOf(ad.id)).toEqual([expect.objectContaining({ previousStatus: "PENDING_REVIEW", effectiveStatus: "ACTIVE", source: "poll" })]);
    const hooks = await h.call<Ads["listAdsWebhooks"]>("GET", "/ads/v1/webhooks", { key: c.adsReporting });
    expect(hooks.json.data[0]).toMatchObject({ last_delivery_at: expect.any(String), failure_count: 0 });
  });

  test("a disapproval carries its reason; the status read that saw it first emits, the poll after it does not", async () => {
    const c = await customerWithHook("Disapproved");
    const ad = await createAd(world, c, { status: "ACTIVE", message: "Miracle cure SIM_DISAPPROVE:TEXT_OVERLAY" });
    world.sim.advance(REVIEW_MS);
    const live = await h.call<Ads["getAdStatus"]>("GET", `/ads/v1/status/${ad.id}`, { key: c.adsReporting });
    expect(live.json.data, describeResponse(live)).toMatchObject({
      effective_status: "DISAPPROVED",
      disapproval_reason: "TEXT_OVERLAY: Simulated disapproval for policy TEXT_OVERLAY.",
    });
    await poll();
    await settled();
    const got = eventsAt(c.path);
    expect(got.map((d) => d.json.data)).toEqual([
      {
        ad_id: ad.id,
        effective_status: "DISAPPROVED",
        reason: "TEXT_OVERLAY: Simulated disapproval for policy TEXT_OVERLAY.",
        previous_status: "PENDING_REVIEW",
      },
    ]);
    expect(got[0]?.verified).toBe(true);
    expect((await changesOf(ad.id)).map((row) => row.source)).toEqual(["status_read"]);
  });

  test("an ad entering WITH_ISSUES is reported through the platform's signed webhook; the poll finds nothing new", async () => {
    const c = await customerWithHook("Issues");
    const ad = await createAd(world, c, { status: "ACTIVE", message: "Spring SIM_WITH_ISSUES" });
    const before = world.sim.webhookDeliveries().length;
    world.sim.advance(5_000);
    await world.sim.flushWebhooks();
    const sent = world.sim.webhookDeliveries().slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ status: 200 });
    expect(JSON.parse(sent[0]?.body ?? "{}").entry[0].changes.map((change: { field: string }) => change.field)).toEqual([
      "in_process_ad_objects",
      "with_issues_ad_objects",
    ]);
    await settled();

    const got = eventsAt(c.path);
    expect(got.map((d) => d.json.data)).toEqual([
      {
        ad_id: ad.id,
        effective_status: "WITH_ISSUES",
        reason: "1815869: The ad could not be processed after it was saved: its creative references media that is no longer available.",
        previous_status: "PENDING_REVIEW",
      },
    ]);
    expect((await changesOf(ad.id)).map((row) => row.source)).toEqual(["platform_webhook"]);
    await poll();
    await settled();
    expect(eventsAt(c.path)).toHaveLength(1);
    const listed = await h.call<Ads["listAds"]>("GET", "/ads/v1/ads", { key: c.adsReporting });
    expect(listed.json.data.find((x: { id: string }) => x.id === ad.id)).toMatchObject({ effective_status: "WITH_ISSUES" });
  });

  test("a forged or unsigned platform webhook is 401 and changes nothing; the handshake echoes the challenge only with our verify token", async () => {
    const c = await customerWithHook("Forged");
    const ad = await createAd(world, c, { status: "ACTIVE" });
    world.sim.advance(REVIEW_MS);
    const body = JSON.stringify({
      object: "ad_account",
      entry: [{ id: c.adAccountId, time: 1, changes: [{ field: "with_issues_ad_objects", value: { id: ad.platform_ad_id, level: "AD" } }] }],
    });
    const sign = (secret: string) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
    const forgeries: Record<string, string>[] = [
      {},
      { "x-hub-signature-256": sign("not-the-app-secret") },
      { "x-hub-signature-256": "sha256=zz" },
      { "x-hub-signature": `sha1=${createHmac("sha1", c.appSecret).update(body).digest("hex")}` },
    ];
    for (const headers of forgeries) {
      const r = await h.call("POST", "/api/platform/webhook", { rawBody: body, headers: { "content-type": "application/json", ...headers } });
      expect(r.status, describeResponse(r)).toBe(401);
    }
    expect(await changesOf(ad.id)).toEqual([]);
    const cached = await h.call<Ads["listAds"]>("GET", "/ads/v1/ads", { key: c.adsReporting });
    expect(cached.json.data.find((x: { id: string }) => x.id === ad.id)).toMatchObject({ effective_status: "PENDING_REVIEW" });

    // The same body signed with the customer's app secret is accepted and re-reads the ad (now ACTIVE).
    const signed = await h.call<Envelope<unknown>>("POST", "/api/platform/webhook", {
      rawBody: body,
      headers: { "content-type": "application/json", "x-hub-signature-256": sign(c.appSecret) },
    });
    expect(signed.status, describeResponse(signed)).toBe(200);
    expect(signed.json.data).toEqual({ named: 1, read: 1, changed: 1 });

    const token = platformVerifyToken(h.deps);
    const ok = await h.call("GET", `/api/platform/webhook?hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=${encodeURIComponent(token)}`);
    expect(ok.status).toBe(200);
    expect(ok.text).toBe("1158201444");
    expect((await h.call("GET", "/api/platform/webhook?hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=wrong")).status).toBe(403);
    expect((await h.call("GET", `/api/platform/webhook?hub.mode=unsubscribe&hub.challenge=1&hub.verify_token=${encodeURIComponent(token)}`)).status).toBe(403);
    // The simulator, like the platform, refuses a subscription whose handshake fails (and keeps the one it has).
    await expect(world.sim.subscribeWebhooks({ url: `${ourOrigin}/api/platform/webhook`, verifyToken: "not-our-verify-token" })).rejects.toThrow(
      /verification failed/,
    );
  });

  test("a signed platform webhook with bytes that are not UTF-8 in a string is cleaned, not refused: answered 200, the change read, the replacement logged", async () => {
    const c = await customerWithHook("Raw bytes");
    const ad = await createAd(world, c, { status: "ACTIVE" });
    world.sim.advance(REVIEW_MS);
    const [before, after] = JSON.stringify({
      object: "ad_account",
      entry: [{ id: c.adAccountId, time: 1, changes: [{ field: "with_issues_ad_objects", value: { id: ad.platform_ad_id, level: "AD", note: "RAW" } }] }],
    }).split("RAW");
    // A lone surrogate written as raw bytes (ED A0 80): not UTF-8.
    const body = Buffer.concat([Buffer.from(before ?? ""), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from(after ?? "")]);
    const signature = `sha256=${createHmac("sha256", c.appSecret).update(body).digest("hex")}`;
    const r = await h.call<Envelope<unknown>>("POST", "/api/platform/webhook", {
      rawBody: new Uint8Array(body),
      headers: { "content-type": "application/json", "x-hub-signature-256": signature },
    });
    expect(r.status, describeResponse(r)).toBe(200);
    expect(r.json.data).toEqual({ named: 1, read: 1, changed: 1 });
    expect(h.logLines.some((line) => line.includes("platform webhook: text no column can hold was replaced") && line.includes("invalid_utf8_offset"))).toBe(
      true,
    );
  });

  test("a receiver that is down gets retries on the backoff schedule with one delivery id, and its registration turns inactive after 24 hours", async () => {
    const c = await customerWithHook("Down");
    answers.set(c.path, 503);
    const ad = await createAd(world, c, { status: "ACTIVE" });
    world.sim.advance(REVIEW_MS);
    await poll();
    await settled();
    const began = clock.now().getTime();
    const rowOf = async () => (await h.db.select().from(adsWebhookDeliveries).where(eq(adsWebhookDeliveries.webhookId, c.hook.id)))[0];

    const waits: number[] = [];
    for (let attempt = 2; ; attempt++) {
      const row = await rowOf();
      if (row?.status !== "pending") break;
      waits.push((row.nextAttemptAt.getTime() - clock.now().getTime()) / 1000);
      clock.set(row.nextAttemptAt);
      // At least this one (against CI's shared PostgreSQL the sweep also republishes other files' deliveries).
      expect((await cron("ads-webhook-retries")).republished, `attempt ${attempt}`).toBeGreaterThanOrEqual(1);
      // The attempt runs from the queue: wait until it has been made and recorded.
      while ((await rowOf())?.attempts !== attempt) await new Promise((resolve) => setTimeout(resolve, 5));
      await settled();
    }
    const got = eventsAt(c.path);
    expect(got).toHaveLength(8);
    expect(new Set(got.map((d) => d.headers["x-service-delivery"])).size).toBe(1);
    expect(got.every((d) => d.verified && d.json.data.ad_id === ad.id)).toBe(true);
    // 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, then what is left of the 24 hours (±10 % jitter on each).
    const nominal = [5, 300, 1800, 7200, 18_000, 36_000];
    nominal.forEach((seconds, i) => {
      expect(waits[i]).toBeGreaterThanOrEqual(seconds * 0.9);
      expect(waits[i]).toBeLessThanOrEqual(seconds * 1.1);
    });
    expect((clock.now().getTime() - began) / 3600_000).toBeLessThanOrEqual(24);
    expect(await rowOf()).toMatchObject({ status: "failed", attempts: 8, lastStatusCode: 503 });

    const list = await h.call<Ads["listAdsWebhooks"]>("GET", "/ads/v1/webhooks", { key: c.adsReporting });
    expect(list.json.data[0], describeResponse(list)).toMatchObject({
      id: c.hook.id,
      status: "inactive",
      active: false,
      failure_count: 8,
      last_delivery_at: null,
    });
    expect(list.json.data[0].deactivation_reason).toMatch(/24 hours/);
  });

  test("our own pause and archive are changes too: one event each", async () => {
    const c = await customerWithHook("Own changes");
    const ad = await createAd(world, c, { status: "ACTIVE" });
    world.sim.advance(REVIEW_MS);
    const paused = await h.call<Ads["updateAd"]>("PATCH", `/ads/v1/ads/${ad.id}`, { key: c.adsFull, body: { status: "PAUSED" } });
    expect(paused.json.data, describeResponse(paused)).toMatchObject({ status: "PAUSED", effective_status: "PAUSED" });
    const archived = await h.call<Ads["archiveAd"]>("DELETE", `/ads/v1/ads/${ad.id}`, { key: c.adsFull });
    expect(archived.json.data, describeResponse(archived)).toMatchObject({ status: "ARCHIVED", effective_status: "ARCHIVED" });
    await poll();
    await settled();
    // Deliveries run concurrently, so they may arrive in either order; `created` and `previous_status` tell.
    expect(
      eventsAt(c.path)
        .map((d) => [d.json.data.previous_status, d.json.data.effective_status])
        .sort(),
    ).toEqual([
      ["PAUSED", "ARCHIVED"],
      ["PENDING_REVIEW", "PAUSED"],
    ]);
    expect((await changesOf(ad.id)).map((row) => row.source)).toEqual(["update", "update"]);
  });

  test("the poll reads at most 50 ads a call and takes the accounts in turns", { timeout: 120_000 }, async () => {
    const big = await customerWithHook("Many ads");
    const small = await customerWithHook("One ad");
    const first = await createAd(world, big, { status: "ACTIVE" });
    const bigIds = new Set([first.platform_ad_id]);
    for (let i = 0; i < 54; i++) {
      // The creative is final after the first ad: reused as it is.
      const r = await h.call<Ads["createAd"]>("POST", "/ads/v1/ads", {
        key: big.adsFull,
        body: { ad_set_id: first.ad_set_id, creative_id: first.creative_id },
      });
      expect(r.status, describeResponse(r)).toBe(201);
      bigIds.add(r.json.data.platform_ad_id);
    }
    const lone = await createAd(world, small, { status: "ACTIVE" });
    world.sim.advance(REVIEW_MS);
    world.sim.clearRequests();
    const result = await poll();
    // Earlier tests' ads changed within 24 hours and are read again too; they change nothing now.
    expect(result).toMatchObject({ changed: 56, deferred: 0 });
    const owner = (ids: string[]) => (ids.includes(lone.platform_ad_id) ? "small" : ids.some((id) => bigIds.has(id)) ? "big" : "earlier");
    const reads = world.sim.requests().filter((r) => r.method === "GET" && r.path === "/v25.0" && owner(r.query.ids?.split(",") ?? []) !== "earlier");
    // One batch of each account, then the big account's second: neither waits for the other's backlog.
    expect(reads.map((r) => [owner(r.query.ids?.split(",") ?? []), r.query.ids?.split(",").length])).toEqual([
      ["big", 50],
      ["small", 1],
      ["big", 5],
    ]);
    await deliveredAll([big.hook.id, small.hook.id]);
    // One delivery per ad, each delivered (a retried one may have reached the receiver twice: same delivery id).
    const bigRows = await h.db.select().from(adsWebhookDeliveries).where(eq(adsWebhookDeliveries.webhookId, big.hook.id));
    expect(bigRows).toHaveLength(55);
    expect(new Set(eventsAt(big.path).map((d) => d.json.data.ad_id)).size).toBe(55);
    expect(new Set(eventsAt(big.path).map((d) => d.headers["x-service-delivery"])).size).toBe(55);
    expect([...new Set(eventsAt(small.path).map((d) => d.json.data.ad_id))]).toEqual([lone.id]);
  });

  // Last in the file: it stops this harness's queue, as a process that dies does.
  test("deliveries survive a restart: a retry lost with the process is sent by the sweep of the next one", async () => {
    const c = await customerWithHook("Restart");
    answers.set(c.path, 503);
    await createAd(world, c, { status: "ACTIVE" });
    world.sim.advance(REVIEW_MS);
    await poll();
    await settled();
    expect(eventsAt(c.path)).toHaveLength(1);

    // The process dies: its queue and the delayed retry message in it are gone; the database stays.
    h.deps.queue.close();
    const next = createRootApp({ ...h.deps, queue: createLocalQueue({ logger: h.deps.logger }) });
    answers.set(c.path, 200);
    const [row] = await h.db.select().from(adsWebhookDeliveries).where(eq(adsWebhookDeliveries.webhookId, c.hook.id));
    clock.set(row?.nextAttemptAt ?? clock.now());
    const swept = await next.root.request("/api/cron/ads-webhook-retries", { headers: { authorization: `Bearer ${CRON_SECRET}` } });
    expect(swept.status).toBe(200);
    // At least this one (against CI's shared PostgreSQL the sweep also republishes other files' deliveries).
    const result = ((await swept.json()) as { data: { result: { republished: number } } }).data.result;
    expect(result.republished).toBeGreaterThanOrEqual(1);
    while ((await h.db.select().from(adsWebhookDeliveries).where(eq(adsWebhookDeliveries.webhookId, c.hook.id)))[0]?.status !== "delivered") {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const got = eventsAt(c.path);
    expect(got).toHaveLength(2);
    expect(got[1]?.headers["x-service-delivery"]).toBe(got[0]?.headers["x-service-delivery"]);
    expect(got.every((d) => d.verified)).toBe(true);
    const list = await next.root.request("/ads/v1/webhooks", { headers: { authorization: `Bearer ${c.adsReporting}` } });
    expect(((await list.json()) as { data: Record<string, unknown>[] }).data[0]).toMatchObject({
      status: "active",
      failure_count: 0,
      last_delivery_at: clock.now().toISOString(),
    });
  });
});
