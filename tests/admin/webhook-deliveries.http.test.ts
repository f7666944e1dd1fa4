import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { ADS_WEBHOOKS } from "../../lib/ads/webhooks/events";
import { ManualClock } from "../../lib/base/clock";
import { enqueueWebhookEvent, publishDeliveries, responseExcerpt } from "../../lib/core/webhooks/engine";
import { emitMailEvent } from "../../lib/mail/webhooks/emit";
import { createHarness, describeResponse, type Admin, type Ads, type Harness, type Mail } from "../helpers/harness";
import { startHttpsReceiver } from "../helpers/https-receiver";

/**
 * Webhook delivery logs, redelivery and re-enabling: the customer routes of both
 * services and the operator's, against a real https receiver on loopback and the real delivery engine.
 */
/** Either service's webhook answers (the two documents' delivery schemas differ only in their events). */
type Deliveries = Mail["listWebhookDeliveries"] | Ads["listAdsWebhookDeliveries"];
type Delivery = Deliveries["data"][number];
type Webhook = Mail["createWebhook"] | Ads["createAdsWebhook"];
type Webhooks = Mail["listWebhooks"] | Ads["listAdsWebhooks"];
type Enabled = Mail["enableWebhook"] | Ads["enableAdsWebhook"];
type Redelivered = Mail["redeliverWebhookDelivery"] | Ads["redeliverAdsWebhookDelivery"];

const CRON_SECRET = "cron-secret-for-delivery-log-tests-0123456789";
// A clock of its own era: the recovery sweep only finds this file's due deliveries on a shared database.
const clock = new ManualClock("1999-04-01T10:00:00.000Z");
/** Status per path; the body is long and ends in multi-byte characters, so the excerpt must cut it. */
const answers = new Map<string, number>();
const LONG_BODY = `${"ok ".repeat(340)}ünïcødé ✓✓✓ ${"z".repeat(2000)}`;
let receiver: Awaited<ReturnType<typeof startHttpsReceiver>>;
let h: Harness;

beforeAll(async () => {
  receiver = await startHttpsReceiver("deliveries.test", (request) => ({
    status: answers.get(request.path) ?? 200,
    headers: { "content-type": "text/plain; charset=utf-8" },
    body: LONG_BODY,
  }));
  h = await createHarness({ clock, env: { ALLOW_LOOPBACK_OUTBOUND: "true", OUTBOUND_TRUSTED_CA: receiver.ca, CRON_SECRET } });
});
afterAll(async () => {
  await h.close();
  await receiver.close();
});

const services = [
  {
    service: "mail" as const,
    key: (c: { mailFull: string }) => c.mailFull,
    register: { events: ["job.completed"] },
    emit: async (customerId: string) => {
      expect(
        await emitMailEvent(h.deps, customerId, "job.completed", { send_job_id: crypto.randomUUID(), recipients: { total: 1, accepted: 1, suppressed: 0 } }),
      ).toBe(1);
    },
  },
  {
    service: "ads" as const,
    key: (c: { adsFull: string }) => c.adsFull,
    register: {},
    emit: async (customerId: string) => {
      const ids = await enqueueWebhookEvent(ADS_WEBHOOKS, h.db, clock.now(), customerId, "ad.status_changed", () =>
        JSON.stringify({ id: crypto.randomUUID(), type: "ad.status_changed", created: 0, data: {} }),
      );
      expect(ids).toHaveLength(1);
      await publishDeliveries(ADS_WEBHOOKS, h.deps, ids);
    },
  },
];

/**
 * Polls (the test's timeout bounds it) until the newest delivery has more than `after` attempts and the
 * last one has a recorded outcome. The local queue's retries run on real timers, so the tests never wait
 * for the queue to be idle; they wait for the outcome.
 */
async function outcome(read: () => Promise<{ data: Delivery[] }>, after = 0): Promise<Delivery> {
  for (;;) {
    const [newest] = (await read()).data;
    if (newest && newest.attempts > after && (newest.status !== "pending" || newest.error !== null)) return newest;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The recovery sweep over HTTP (it stands in for the queue's delayed retry); on a shared database it may find other files' rows too. */
async function sweep(service: "mail" | "ads"): Promise<void> {
  const r = await h.call("GET", `/api/cron/${service}-webhook-retries`, { headers: { authorization: `Bearer ${CRON_SECRET}` } });
  expect(r.status, describeResponse(r)).toBe(200);
}

describe.each(services)("$service: customer delivery log", ({ service, key, register, emit }) => {
  let path = "";
  const base = `/${service}/v1/webhooks`;
  const log = (k: string, webhookId: string, query = "") => h.call<Deliveries>("GET", `${base}/${webhookId}/deliveries${query}`, { key: k });
  const settled = (k: string, webhookId: string, after = 0) => outcome(async () => (await log(k, webhookId, "?limit=1")).json, after);

  test("shows each delivery's attempts, status code, latency and a bounded UTF-8 excerpt; pages newest first; another account's ids are 404", async () => {
    const c = await h.customer(`${service} log`);
    path = `/${service}/ok`;
    const hook = await h.call<Webhook>("POST", base, { key: key(c), body: { url: `${receiver.origin}${path}`, ...register } });
    expect(hook.status, describeResponse(hook)).toBe(201);
    for (let i = 0; i < 3; i++) {
      await emit(c.id);
      clock.advance(1000);
      await vi.waitFor(async () => expect((await log(key(c), hook.json.data.id, "?status=delivered")).json.data).toHaveLength(i + 1), { timeout: 60_000 });
    }
    const r = await log(key(c), hook.json.data.id);
    expect(r.status, describeResponse(r)).toBe(200);
    expect(r.json.data).toHaveLength(3);
    const [newest] = r.json.data;
    expect(newest).toMatchObject({ status: "delivered", attempts: 1, status_code: 200, error: null, next_attempt_at: null });
    expect(newest?.latency_ms).toBeGreaterThanOrEqual(0);
    const excerpt = newest?.response_excerpt ?? "";
    expect(Buffer.byteLength(excerpt)).toBeLessThanOrEqual(1024);
    expect(LONG_BODY.startsWith(excerpt)).toBe(true);
    expect(excerpt.length).toBeGreaterThan(1000);

    const one = await log(key(c), hook.json.data.id, "?limit=2");
    const two = await log(key(c), hook.json.data.id, `?limit=2&after=${one.json.paging.after}`);
    expect([...one.json.data, ...two.json.data].map((d) => d.id)).toEqual(r.json.data.map((d) => d.id));
    expect((await log(key(c), hook.json.data.id, "?status=failed")).json.data).toEqual([]);

    const stranger = await h.customer(`${service} stranger`);
    expect((await log(key(stranger), hook.json.data.id)).status).toBe(404);
    expect((await h.call("POST", `${base}/${hook.json.data.id}/deliveries/${newest?.id}/redeliver`, { key: key(stranger) })).status).toBe(404);
    expect((await h.call("POST", `${base}/${hook.json.data.id}/enable`, { key: key(stranger) })).status).toBe(404);
    expect((await h.call("POST", `${base}/${hook.json.data.id}/deliveries/${crypto.randomUUID()}/redeliver`, { key: key(c) })).status).toBe(404);

    // Finished deliveries leave the log after 30 days (the daily prune cron, for both services).
    clock.advance(31 * 86_400_000);
    const pruned = await h.call("GET", "/api/cron/mail-history-prune", { headers: { authorization: `Bearer ${CRON_SECRET}` } });
    expect(pruned.status, describeResponse(pruned)).toBe(200);
    expect((await log(key(c), hook.json.data.id)).json.data).toEqual([]);
  });

  test("a failing endpoint: redelivery now is idempotent by key; after 24 h it is inactive (409), re-enabled, and a redelivery is one attempt", async () => {
    const c = await h.customer(`${service} failing`);
    const failing = `/${service}/failing`;
    answers.set(failing, 503);
    const hook = await h.call<Webhook>("POST", base, { key: key(c), body: { url: `${receiver.origin}${failing}`, ...register } });
    const webhookId = hook.json.data.id as string;
    await emit(c.id);
    const first = await settled(key(c), webhookId);
    expect(first).toMatchObject({ status: "pending", attempts: 1, status_code: 503, error: expect.stringMatching(/503/), next_attempt_at: expect.any(String) });

    // Redeliver now instead of waiting for the retry; the same Idempotency-Key replays and sends nothing.
    const redeliver = (idempotencyKey?: string) =>
      h.call<Redelivered>("POST", `${base}/${webhookId}/deliveries/${first.id}/redeliver`, {
        key: key(c),
        headers: idempotencyKey ? { "idempotency-key": idempotencyKey } : {},
      });
    const now = await redeliver("redeliver-once");
    expect(now.status, describeResponse(now)).toBe(202);
    expect(now.json.data).toMatchObject({ id: first.id, status: "pending" });
    const second = await settled(key(c), webhookId, first.attempts);
    const seen = receiver.received.length;
    const replay = await redeliver("redeliver-once");
    expect(replay.status).toBe(202);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect((await log(key(c), webhookId, "?limit=1")).json.data[0]?.attempts).toBe(second.attempts);
    expect(receiver.received.length).toBe(seen);

    // The schedule runs out: the endpoint becomes inactive.
    let current = second;
    for (let i = 0; i < 12 && current.status === "pending" && current.next_attempt_at; i++) {
      clock.set(new Date(current.next_attempt_at));
      await sweep(service);
      current = await settled(key(c), webhookId, current.attempts);
    }
    expect(await settled(key(c), webhookId)).toMatchObject({ status: "failed", status_code: 503 });
    const listed = await h.call<Webhooks>("GET", base, { key: key(c) });
    expect(listed.json.data[0]).toMatchObject({ id: webhookId, active: false, status: "inactive" });

    const refused = await redeliver();
    expect(refused.status, describeResponse(refused)).toBe(409);
    expect(refused.text).toContain("webhook_inactive");

    const enabled = await h.call<Enabled>("POST", `${base}/${webhookId}/enable`, { key: key(c) });
    expect(enabled.status, describeResponse(enabled)).toBe(200);
    expect(enabled.json.data).toMatchObject({ active: true, status: "active", failure_count: 0, deactivated_at: null });

    // Still failing: one attempt, no retry scheduled, the endpoint stays active.
    const before = receiver.received.length;
    expect((await redeliver()).status).toBe(202);
    current = await settled(key(c), webhookId, current.attempts);
    expect(current).toMatchObject({ status: "failed", redelivered_at: expect.any(String), next_attempt_at: null });
    clock.advance(3 * 3600_000);
    await sweep(service);
    expect((await log(key(c), webhookId, "?limit=1")).json.data[0]).toMatchObject({ attempts: current.attempts, status: "failed" });
    expect(receiver.received.length - before).toBe(1);
    expect((await h.call<Webhooks>("GET", base, { key: key(c) })).json.data[0]).toMatchObject({ active: true });

    // Fixed on their side: the redelivery succeeds.
    answers.set(failing, 200);
    expect((await redeliver()).status).toBe(202);
    expect(await settled(key(c), webhookId, current.attempts)).toMatchObject({ status: "delivered", status_code: 200 });

    // A reporting key reads the log but cannot redeliver.
    const reporting = service === "mail" ? c.mailReporting : c.adsReporting;
    expect((await log(reporting, webhookId)).status).toBe(200);
    expect((await h.call("POST", `${base}/${webhookId}/deliveries/${first.id}/redeliver`, { key: reporting })).status).toBe(403);
  });
});

describe("operator view", () => {
  test("endpoints with state, delivery logs, redelivery (idempotent) and re-enabling per customer; another customer's ids are 404", async () => {
    const c = await h.customer("Operator view");
    const other = await h.customer("Operator other");
    answers.set("/operator", 500);
    const hook = await h.call<Mail["createWebhook"]>("POST", "/mail/v1/webhooks", {
      key: c.mailFull,
      body: { url: `${receiver.origin}/operator`, events: ["job.completed"] },
    });
    const webhookId = hook.json.data.id as string;
    await services[0]?.emit(c.id);
    const read = async () =>
      (await h.admin<Admin["listCustomerMailWebhookDeliveries"]>("GET", `/v1/customers/${c.id}/mail/webhooks/${webhookId}/deliveries`)).json;
    await outcome(read);

    const endpoints = await h.admin<Admin["listCustomerMailWebhooks"]>("GET", `/v1/customers/${c.id}/mail/webhooks`);
    expect(endpoints.status, describeResponse(endpoints)).toBe(200);
    expect(endpoints.json.data).toEqual([expect.objectContaining({ id: webhookId, active: true, failure_count: 1 })]);
    expect(endpoints.text).not.toContain("whsec_");
    expect((await h.admin<Admin["listCustomerAdsWebhooks"]>("GET", `/v1/customers/${c.id}/ads/webhooks`)).json.data).toEqual([]);

    const deliveries = await h.admin<Admin["listCustomerMailWebhookDeliveries"]>("GET", `/v1/customers/${c.id}/mail/webhooks/${webhookId}/deliveries`);
    expect(deliveries.status, describeResponse(deliveries)).toBe(200);
    const [delivery] = deliveries.json.data;
    expect(delivery).toMatchObject({ event: "job.completed", attempts: 1, status_code: 500 });

    const path = `/v1/customers/${c.id}/mail/webhooks/${webhookId}/deliveries/${delivery?.id}/redeliver`;
    const redelivered = await h.call("POST", `/admin${path}`, { key: h.deps.adminToken, headers: { "idempotency-key": "operator-redeliver" } });
    expect(redelivered.status, describeResponse(redelivered)).toBe(202);
    const after = await outcome(read, delivery?.attempts);
    const seen = receiver.received.length;
    const again = await h.call("POST", `/admin${path}`, { key: h.deps.adminToken, headers: { "idempotency-key": "operator-redeliver" } });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect((await read()).data[0]?.attempts).toBe(after.attempts);
    expect(receiver.received.length).toBe(seen);

    const enable = await h.admin<Admin["enableCustomerMailWebhook"]>("POST", `/v1/customers/${c.id}/mail/webhooks/${webhookId}/enable`);
    expect(enable.status, describeResponse(enable)).toBe(200);
    expect(enable.json.data).toMatchObject({ id: webhookId, active: true });

    for (const foreign of [
      ["GET", `/v1/customers/${other.id}/mail/webhooks/${webhookId}/deliveries`],
      ["POST", `/v1/customers/${other.id}/mail/webhooks/${webhookId}/deliveries/${delivery?.id}/redeliver`],
      ["POST", `/v1/customers/${other.id}/mail/webhooks/${webhookId}/enable`],
      ["GET", `/v1/customers/${c.id}/ads/webhooks/${webhookId}/deliveries`],
      ["GET", `/v1/customers/${crypto.randomUUID()}/mail/webhooks`],
    ] as const) {
      const r = await h.admin(foreign[0], foreign[1]);
      expect(r.status, `${foreign.join(" ")}: ${describeResponse(r)}`).toBe(404);
    }
  });
});

test("the response excerpt is at most 1,024 bytes of valid UTF-8, cut on a character boundary", () => {
  expect(responseExcerpt(new Uint8Array())).toBeNull();
  const euro = Buffer.from("€".repeat(400));
  const cut = responseExcerpt(euro) ?? "";
  expect(cut).toBe("€".repeat(341));
  expect(responseExcerpt(Buffer.from([0x61, 0xff, 0x00, 0x62]))).toBe("a\ufffdb");
});
