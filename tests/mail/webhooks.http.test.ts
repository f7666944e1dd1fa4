import { and, eq, inArray, lte } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ManualClock } from "../../lib/base/clock";
import { mailWebhookDeliveries } from "../../lib/db/schema";
import { emitMailEvent } from "../../lib/mail/webhooks/emit";
import { createHarness, describeResponse, type Harness, type Mail, type ErrorEnvelope, type ErrorDetail, type CronRun } from "../helpers/harness";
import { startHttpsReceiver, verifyStripeStyle } from "../helpers/https-receiver";
import { readyMailCustomer } from "../helpers/mail";
import { postEvent, postmarkEvent, sendTransactional } from "../helpers/postmark-events";

/**
 * A customer's webhook receiver on loopback https with a self-signed certificate (trusted through the
 * test-only OUTBOUND_TRUSTED_CA, reached through ALLOW_LOOPBACK_OUTBOUND). It verifies signatures the way
 * a third party following Stripe's scheme would, written here from the documented rule rather than with
 * our verifier, and deduplicates on X-Service-Delivery.
 */
type Received = { event: string; delivery: string; signature: string; body: string; verified: boolean; timestamp: number; status: number };

class Receiver {
  close: () => Promise<void> = async () => {};
  ca = "";
  origin = "";
  secrets = new Map<string, string>();
  received: Received[] = [];
  /** Delivery ids already processed, as a receiver that dedupes keeps them. */
  processed = new Set<string>();
  /** What the receiver acted on: each delivery id once, however often it arrived. */
  actions: string[] = [];
  /** Answers to give, per path, in order; the last one repeats. */
  answers = new Map<string, number[]>();
  #waiters: { count: number; resolve: () => void }[] = [];

  constructor(private readonly now: () => number) {}

  async start(): Promise<void> {
    const receiver = await startHttpsReceiver("hooks.test", (request) => {
      const signature = String(request.headers["x-service-signature"] ?? "");
      const delivery = String(request.headers["x-service-delivery"] ?? "");
      const { verified, timestamp } = verifyStripeStyle(this.secrets.get(request.path) ?? "", request.body, signature, this.now() / 1000);
      const queue = this.answers.get(request.path) ?? [200];
      const status = queue.length > 1 ? (queue.shift() ?? 200) : (queue[0] ?? 200);
      // A receiver processes a verified delivery once, whatever it answers, and skips repeats.
      if (verified && !this.processed.has(delivery)) {
        this.processed.add(delivery);
        this.actions.push(delivery);
      }
      this.received.push({ event: String(request.headers["x-service-event"] ?? ""), delivery, signature, body: request.body, verified, timestamp, status });
      for (const waiter of this.#waiters.filter((w) => this.received.length >= w.count)) waiter.resolve();
      return status >= 300 && status < 400 ? { status, headers: { location: "https://example.com/elsewhere" } } : { status };
    });
    this.ca = receiver.ca;
    this.origin = receiver.origin;
    this.close = receiver.close;
  }

  /** Resolves once `count` requests have arrived in total (the test's timeout bounds the wait). */
  until(count: number): Promise<void> {
    if (this.received.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ count, resolve }));
  }
}

let h: Harness;
let c: Awaited<ReturnType<typeof readyMailCustomer>>;
let receiver: Receiver;
const CRON_SECRET = "cron-secret-for-webhook-tests-0123456789";
// A clock of its own era: the recovery sweep only finds deliveries due by this clock, never another
// test file's (CI runs the HTTP suite in parallel against one PostgreSQL database).
const clock = new ManualClock("2002-03-01T10:00:00.000Z");

beforeAll(async () => {
  receiver = new Receiver(() => clock.now().getTime());
  await receiver.start();
  h = await createHarness({ clock, env: { ALLOW_LOOPBACK_OUTBOUND: "true", OUTBOUND_TRUSTED_CA: receiver.ca, CRON_SECRET } });
  c = await readyMailCustomer(h, "Webhooks Co");
});
afterAll(async () => {
  await h.close();
  await receiver.close();
});

const ownWebhooks = new Set<string>();

async function register(customer: { mailFull: string }, path: string, events: string[]) {
  const r = await h.call<Mail["createWebhook"]>("POST", "/mail/v1/webhooks", { key: customer.mailFull, body: { url: `${receiver.origin}${path}`, events } });
  expect(r.status, describeResponse(r)).toBe(201);
  receiver.secrets.set(path, r.json.data.secret);
  ownWebhooks.add(r.json.data.id);
  return r.json.data as { id: string; secret: string };
}

/**
 * The retry sweep over HTTP, as Vercel Cron calls it: how many deliveries it republished. Against CI's
 * shared PostgreSQL it also sees other files' deliveries (their receivers are gone), so the tests count at
 * least their own, and "nothing due" is judged on this file's endpoints (`nothingDue`).
 */
async function sweep(): Promise<number> {
  const r = await h.call<CronRun>("GET", "/api/cron/mail-webhook-retries", { headers: { authorization: `Bearer ${CRON_SECRET}` } });
  expect(r.status, describeResponse(r)).toBe(200);
  return Number(r.json.data.result.republished);
}

/** None of this file's deliveries is due now (pending, its next attempt reached), and the sweep runs. */
async function nothingDue(): Promise<void> {
  const due = await h.db
    .select({ id: mailWebhookDeliveries.id })
    .from(mailWebhookDeliveries)
    .where(
      and(
        inArray(mailWebhookDeliveries.webhookId, [...ownWebhooks]),
        eq(mailWebhookDeliveries.status, "pending"),
        lte(mailWebhookDeliveries.nextAttemptAt, clock.now()),
      ),
    );
  expect(due).toEqual([]);
  await sweep();
}

const deliveriesOf = (webhookId: string) => h.db.select().from(mailWebhookDeliveries).where(eq(mailWebhookDeliveries.webhookId, webhookId));

/**
 * Waits until the endpoint's only delivery has finished its current attempt (the worker records the
 * answer after the receiver has seen the request): delivered, failed, or an error recorded for a retry.
 */
async function attemptRecorded(webhookId: string) {
  for (;;) {
    const [row] = await deliveriesOf(webhookId);
    if (row?.status !== "pending" || row.lastError !== null) return row;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
const bodyOf = (r: Received) => JSON.parse(r.body) as Record<string, unknown>;

describe("registration", () => {
  test("POST returns the secret once; GET lists without secrets; DELETE removes; another account's id is 404", async () => {
    const d = await readyMailCustomer(h, "Registration Co");
    const created = await h.call<Mail["createWebhook"]>("POST", "/mail/v1/webhooks", {
      key: d.mailFull,
      body: { url: "https://portal.example.com/hooks/mail", events: ["job.completed", "suppression.changed", "job.completed"] },
    });
    expect(created.status, describeResponse(created)).toBe(201);
    expect(created.json.data).toMatchObject({
      url: "https://portal.example.com/hooks/mail",
      events: ["job.completed", "suppression.changed"],
      active: true,
      deactivated_at: null,
    });
    expect(created.json.data.secret).toMatch(/^whsec_[A-Za-z0-9_-]{40,}$/);

    const list = await h.call<Mail["listWebhooks"]>("GET", "/mail/v1/webhooks", { key: d.mailReporting });
    expect(list.status, describeResponse(list)).toBe(200);
    expect(list.json.data).toEqual([expect.objectContaining({ id: created.json.data.id, url: "https://portal.example.com/hooks/mail" })]);
    expect(list.json.data[0]).not.toHaveProperty("secret");
    expect(list.text).not.toContain(created.json.data.secret);
    expect((await h.call<Mail["listWebhooks"]>("GET", "/mail/v1/webhooks", { key: c.mailReporting })).json.data.map((w: { id: string }) => w.id)).not.toContain(
      created.json.data.id,
    );

    expect((await h.call("DELETE", `/mail/v1/webhooks/${created.json.data.id}`, { key: c.mailFull })).status).toBe(404);
    const deleted = await h.call<Mail["deleteWebhook"]>("DELETE", `/mail/v1/webhooks/${created.json.data.id}`, { key: d.mailFull });
    expect(deleted.status, describeResponse(deleted)).toBe(200);
    expect(deleted.json.data).toEqual({ id: created.json.data.id, deleted: true });
    expect((await h.call("DELETE", `/mail/v1/webhooks/${created.json.data.id}`, { key: d.mailFull })).status).toBe(404);
    expect((await h.call<Mail["listWebhooks"]>("GET", "/mail/v1/webhooks", { key: d.mailReporting })).json.data).toEqual([]);
  });

  test("https only, public hosts, known events (422); missing fields 400; scopes and keys (403/401); at most 10 endpoints (409)", async () => {
    const d = await readyMailCustomer(h, "Validation Co");
    const post = <T = Mail["createWebhook"]>(body: unknown, key = d.mailFull) => h.call<T>("POST", "/mail/v1/webhooks", { key, body });
    for (const url of [
      "http://portal.example.com/hook",
      "ftp://portal.example.com/hook",
      "https://user:pw@portal.example.com/hook",
      "https://10.0.0.8/hook",
      "https://[fd00::1]/hook",
      "https://169.254.169.254/latest",
    ]) {
      const r = await post<ErrorEnvelope<ErrorDetail[]>>({ url, events: ["job.completed"] });
      expect(r.status, `${url}: ${describeResponse(r)}`).toBe(422);
      expect(r.json.error.details[0].path).toBe("url");
    }
    expect((await post({ url: "https://portal.example.com/hook", events: ["send.completed"] })).status).toBe(422);
    expect((await post({ url: "https://portal.example.com/hook", events: [] })).status).toBe(422);
    expect((await post({ url: "https://portal.example.com/hook", events: ["job.completed"], secret: "mine" })).status).toBe(422);
    expect((await post({ events: ["job.completed"] })).status).toBe(400);
    expect((await post({ url: "https://portal.example.com/hook", events: ["job.completed"] }, d.mailReporting)).status).toBe(403);
    expect((await h.call("POST", "/mail/v1/webhooks", { body: { url: "https://portal.example.com/hook", events: ["job.completed"] } })).status).toBe(401);
    expect((await h.call("GET", "/mail/v1/webhooks")).status).toBe(401);
    expect((await h.call("DELETE", `/mail/v1/webhooks/${crypto.randomUUID()}`, { key: d.mailReporting })).status).toBe(403);
    expect((await h.call("DELETE", "/mail/v1/webhooks/not-a-uuid", { key: d.mailFull })).status).toBe(422);

    // Loopback is reachable only under the explicit test-only setting this harness has; without it, 422.
    const strict = await createHarness();
    try {
      const other = await strict.customer("Strict Co");
      const r = await strict.call("POST", "/mail/v1/webhooks", { key: other.mailFull, body: { url: `${receiver.origin}/hook`, events: ["job.completed"] } });
      expect(r.status, describeResponse(r)).toBe(422);
      expect(
        (await strict.call("POST", "/mail/v1/webhooks", { key: other.mailFull, body: { url: "https://localhost/hook", events: ["job.completed"] } })).status,
      ).toBe(422);
    } finally {
      await strict.close();
    }

    for (let i = 0; i < 10; i++) expect((await post({ url: `https://portal.example.com/hook/${i}`, events: ["job.completed"] })).status).toBe(201);
    const eleventh = await post<ErrorEnvelope>({ url: "https://portal.example.com/hook/10", events: ["job.completed"] });
    expect(eleventh.status, describeResponse(eleventh)).toBe(409);
    expect(eleventh.json.error.details).toEqual([{ path: "reason", message: "webhook_limit_reached" }]);
  });
});

describe("delivery", () => {
  test("job.completed reaches a subscribed endpoint, signed and with the spec's payload; other endpoints get nothing", async () => {
    const d = await readyMailCustomer(h, "Jobs Co");
    const hook = await register(d, "/jobs", ["job.completed"]);
    await register(d, "/suppressions-only", ["suppression.changed"]);
    const start = receiver.received.length;
    const jobId = crypto.randomUUID();
    expect(await emitMailEvent(h.deps, d.id, "job.completed", { send_job_id: jobId, recipients: { total: 3, accepted: 2, suppressed: 1 } })).toBe(1);
    await receiver.until(start + 1);
    await h.deps.queue.idle();
    const got = receiver.received.slice(start);
    expect(got).toHaveLength(1);
    const [first] = got;
    expect(first).toMatchObject({ event: "job.completed", verified: true, status: 200 });
    expect(first?.body).toBe(
      JSON.stringify({
        event: "job.completed",
        delivery_id: first?.delivery,
        send_job_id: jobId,
        recipients: { total: 3, accepted: 2, suppressed: 1 },
        occurred_at: clock.now().toISOString(),
      }),
    );
    expect(first?.signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect((await deliveriesOf(hook.id))[0]).toMatchObject({ status: "delivered", attempts: 1, lastStatusCode: 200 });
  });

  test("failures are retried with backoff, each attempt signed afresh with the same delivery id; the receiver dedupes", async () => {
    const d = await readyMailCustomer(h, "Retry Co");
    const hook = await register(d, "/flaky", ["job.completed"]);
    // Processed but answered 500 (say, a timeout on their side), then a redirect, then success.
    receiver.answers.set("/flaky", [500, 302, 503, 200]);
    const start = receiver.received.length;
    await emitMailEvent(h.deps, d.id, "job.completed", { send_job_id: crypto.randomUUID(), recipients: { total: 1, accepted: 1, suppressed: 0 } });
    await receiver.until(start + 1);
    await attemptRecorded(hook.id);

    // Nothing is due before the backoff (5 s ± 10 %) has passed.
    clock.advance(4000);
    await nothingDue();
    for (const wait of [2_000, 5.5 * 60_000, 33 * 60_000]) {
      clock.advance(wait);
      const count = receiver.received.length;
      expect(await sweep()).toBeGreaterThanOrEqual(1);
      await receiver.until(count + 1);
      await attemptRecorded(hook.id);
    }
    const attempts = receiver.received.slice(start);
    expect(attempts.map((a) => a.status)).toEqual([500, 302, 503, 200]);
    expect(new Set(attempts.map((a) => a.delivery)).size).toBe(1);
    expect(attempts.every((a) => a.verified)).toBe(true);
    // Signed afresh: the last attempt, ~40 minutes after the first, carries its own time and still verifies.
    expect((attempts.at(-1)?.timestamp ?? 0) - (attempts[0]?.timestamp ?? 0)).toBeGreaterThan(35 * 60);
    expect(new Set(attempts.map((a) => a.body)).size).toBe(1);
    expect(receiver.actions.filter((id) => id === attempts[0]?.delivery)).toHaveLength(1);
    expect((await deliveriesOf(hook.id))[0]).toMatchObject({ status: "delivered", attempts: 4, lastStatusCode: 200 });
    await nothingDue();
  });

  test("after 24 hours of failures the delivery fails and the endpoint is marked inactive; it then receives nothing", async () => {
    const d = await readyMailCustomer(h, "Down Co");
    const hook = await register(d, "/down", ["job.completed"]);
    receiver.answers.set("/down", [500]);
    const start = receiver.received.length;
    await emitMailEvent(h.deps, d.id, "job.completed", { send_job_id: crypto.randomUUID(), recipients: { total: 1, accepted: 1, suppressed: 0 } });
    await receiver.until(start + 1);
    const began = clock.now().getTime();
    // Time jumps to each scheduled retry; the sweep stands in for the queue's delayed message.
    for (let attempt = 2; ; attempt++) {
      const pending = await attemptRecorded(hook.id);
      if (pending?.status !== "pending") break;
      clock.set(pending.nextAttemptAt);
      expect(await sweep(), `attempt ${attempt}`).toBeGreaterThanOrEqual(1);
      await receiver.until(start + attempt);
    }
    clock.advance(24 * 3600_000);
    await nothingDue();

    const attempts = receiver.received.slice(start);
    expect(attempts).toHaveLength(8);
    expect(attempts.every((a) => a.verified && a.delivery === attempts[0]?.delivery)).toBe(true);
    // The schedule is capped at 24 h after the event, whatever the sweep's timing.
    expect(((attempts.at(-1)?.timestamp ?? 0) * 1000 - began) / 3600_000).toBeLessThanOrEqual(24);
    const [delivery] = await deliveriesOf(hook.id);
    expect(delivery).toMatchObject({ status: "failed", attempts: 8, lastStatusCode: 500 });

    const list = await h.call<Mail["listWebhooks"]>("GET", "/mail/v1/webhooks", { key: d.mailReporting });
    expect(list.json.data[0], describeResponse(list)).toMatchObject({ id: hook.id, active: false, deactivated_at: expect.any(String) });
    expect(list.json.data[0].deactivation_reason).toMatch(/24 hours/);
    expect(await emitMailEvent(h.deps, d.id, "job.completed", { send_job_id: crypto.randomUUID(), recipients: { total: 1, accepted: 1, suppressed: 0 } })).toBe(
      0,
    );
  });

  test("message.bounced and suppression.changed follow provider events; a repeated provider webhook sends nothing twice", async () => {
    const d = await readyMailCustomer(h, "Bounce Co");
    await register(d, "/events", ["message.bounced", "suppression.changed"]);
    const to = "bounced-here@example.com";
    const messageId = await sendTransactional(h, d, to);
    const start = receiver.received.length;
    const bounce = postmarkEvent.bounce({ message_id: messageId }, { at: "2002-03-01T10:00:01.1234567Z", email: to, id: 777 });
    expect((await postEvent(h, bounce)).json.data.outcome).toBe("stored");
    await receiver.until(start + 2);
    expect((await postEvent(h, bounce)).json.data.outcome).toBe("duplicate");

    const reactivated = await h.call("POST", "/mail/v1/suppressions/reactivate", { key: d.mailFull, body: { email: to, stream: "transactional" } });
    expect(reactivated.status, describeResponse(reactivated)).toBe(200);
    await receiver.until(start + 3);

    const got = receiver.received.slice(start);
    expect(got.every((r) => r.verified)).toBe(true);
    const byEvent = (event: string) => got.filter((r) => r.event === event).map(bodyOf);
    expect(byEvent("message.bounced")).toEqual([
      {
        event: "message.bounced",
        delivery_id: expect.any(String),
        message_id: messageId,
        send_job_id: null,
        kind: "transactional",
        bounce_type: "HardBounce",
        final: true,
        bounced_at: "2002-03-01T10:00:01.123Z",
        occurred_at: expect.any(String),
      },
    ]);
    const changes = byEvent("suppression.changed");
    expect(changes).toEqual([
      expect.objectContaining({ email: to, stream: "transactional", active: true, reason: "hard_bounce", reactivatable: true }),
      expect.objectContaining({ email: to, stream: "transactional", active: false, reason: "hard_bounce", reactivatable: false }),
    ]);
    const feed = await h.call<Mail["listSuppressionChanges"]>("GET", `/mail/v1/suppressions?since=2000-01-01T00:00:00Z&stream=transactional`, {
      key: d.mailReporting,
    });
    const { event: _event, delivery_id: _id, occurred_at: _at, ...entry } = changes[1] ?? {};
    expect(feed.json.data).toEqual([entry]);
  });

  test("deleting an endpoint drops its pending deliveries", async () => {
    const d = await readyMailCustomer(h, "Delete Co");
    const hook = await register(d, "/gone", ["job.completed"]);
    receiver.answers.set("/gone", [500]);
    const start = receiver.received.length;
    await emitMailEvent(h.deps, d.id, "job.completed", { send_job_id: crypto.randomUUID(), recipients: { total: 1, accepted: 1, suppressed: 0 } });
    await receiver.until(start + 1);
    await attemptRecorded(hook.id);
    expect((await h.call("DELETE", `/mail/v1/webhooks/${hook.id}`, { key: d.mailFull })).status).toBe(200);
    clock.advance(60_000);
    await nothingDue();
    expect(await deliveriesOf(hook.id)).toEqual([]);
  });
});
