import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ManualClock } from "../../lib/base/clock";
import { verifyWebhook } from "../../lib/core/webhook-signature";
import { findCronJob } from "../../lib/cron";
import { mailTemplates } from "../../lib/db/schema";
import { DEMO_TRANSACTIONAL_TEMPLATE } from "../../lib/mail/seed";
import { createHarness, describeResponse, type Harness, type Mail } from "../helpers/harness";
import { startHttpsReceiver } from "../helpers/https-receiver";
import { readyMailCustomer } from "../helpers/mail";
import { addRecipients, createJob, createNewsletter, people, waitForJob } from "../helpers/send-jobs";

/** The billing system: https on loopback with its own certificate, answering what the test says. */
async function startBillingReceiver() {
  let status = 200;
  const receiver = await startHttpsReceiver("billing.test", () => ({ status, body: "{}" }));
  return {
    ...receiver,
    url: `${receiver.origin}/usage`,
    answer(next: number) {
      status = next;
    },
  };
}

const SECRET = "billing-secret-for-tests";
// A day of its own, so mail of other test files (sent "now") is not in it.
const DAY = "2031-03-10";
const clock = new ManualClock(`${DAY}T12:00:00.000Z`);
let h: Harness;
let billing: Awaited<ReturnType<typeof startBillingReceiver>>;

beforeAll(async () => {
  billing = await startBillingReceiver();
  h = await createHarness({
    clock,
    env: { BILLING_URL: billing.url, BILLING_SECRET: SECRET, ALLOW_LOOPBACK_OUTBOUND: "true", OUTBOUND_TRUSTED_CA: billing.ca },
  });
});
afterAll(async () => {
  await h.close();
  await billing.close();
});

async function sendTransactional(c: Awaited<ReturnType<typeof readyMailCustomer>>, to: string) {
  const [template] = await h.db
    .select()
    .from(mailTemplates)
    .where(and(eq(mailTemplates.customerId, c.id), eq(mailTemplates.name, DEMO_TRANSACTIONAL_TEMPLATE)));
  const r = await h.call("POST", `/mail/v1/templates/${template?.id}/send`, {
    key: c.mailFull,
    body: { to, params: { order_number: "A-1", order_url: "https://shop.example.com/o/A-1" } },
  });
  expect(r.status, describeResponse(r)).toBe(200);
}

async function sentJob(c: Awaited<ReturnType<typeof readyMailCustomer>>, count: number, extra: Record<string, unknown> = {}, start = true) {
  const job = await createJob(h, c.mailFull, { template_id: await createNewsletter(h, c.mailFull), ...extra });
  await addRecipients(h, c.mailFull, job.id, people(count, `${crypto.randomUUID().slice(0, 8)}.example.com`));
  if (start) expect((await h.call("POST", `/mail/v1/send-jobs/${job.id}/start`, { key: c.mailFull })).status).toBe(200);
  return job.id as string;
}

describe("GET /v1/usage", () => {
  test("this month's accepted live mail, projection, limit, remaining (reserved pending counted), previous months; sandbox never counts", async () => {
    const c = await readyMailCustomer(h, "Usage Co");
    clock.set("2031-02-15T09:00:00.000Z");
    await sendTransactional(c, "feb@example.com");
    clock.set(`${DAY}T12:00:00.000Z`);
    await sendTransactional(c, "a@example.com");
    await sendTransactional(c, "b@example.com");
    await waitForJob(h, c.mailReporting, await sentJob(c, 3), "completed");
    await sentJob(c, 4, {}, false);
    await sentJob(c, 2, { scheduled_at: "2031-03-20T08:00:00.000Z" });

    const usage = await h.call<Mail["getUsage"]>("GET", "/mail/v1/usage", { key: c.mailReporting });
    expect(usage.status, describeResponse(usage)).toBe(200);
    // 9.5 days elapsed, 21.5 to go: 5 + round(5 / 9.5 × 21.5) = 16, plus the scheduled job's 2.
    expect(usage.json.data).toMatchObject({
      month: "2031-03",
      sent: 5,
      projection: 18,
      limit: 100_000,
      reserved: 6,
      remaining: 100_000 - 5 - 6,
      max_per_job: 50_000,
    });
    expect(usage.json.data.previous).toHaveLength(12);
    expect(usage.json.data.previous[0]).toEqual({ month: "2031-02", sent: 1 });
    expect(usage.json.data.previous[11]).toEqual({ month: "2030-03", sent: 0 });

    const sandbox = await readyMailCustomer(h, "Usage sandbox");
    await h.admin("PATCH", `/v1/customers/${sandbox.id}`, { mail: { mode: "sandbox" } });
    await sendTransactional(sandbox, "s@example.com");
    expect((await h.call<Mail["getUsage"]>("GET", "/mail/v1/usage", { key: sandbox.mailFull })).json.data).toMatchObject({ sent: 0, projection: 0 });
    expect((await h.call("GET", "/mail/v1/usage", { key: null })).status).toBe(401);
  });
});

describe("daily billing report", () => {
  test("posts each customer's accepted live count of the previous UTC day, signed; a failed post is retried with the same body and key; a posted day is not posted again", async () => {
    const c = await readyMailCustomer(h, "Billed Co");
    clock.set(`${DAY}T15:00:00.000Z`);
    await sendTransactional(c, "x@example.com");
    await waitForJob(h, c.mailReporting, await sentJob(c, 3), "completed");
    const sandbox = await readyMailCustomer(h, "Unbilled sandbox");
    await h.admin("PATCH", `/v1/customers/${sandbox.id}`, { mail: { mode: "sandbox" } });
    await sendTransactional(sandbox, "y@example.com");

    clock.set("2031-03-11T00:20:00.000Z");
    const cron = findCronJob("billing-report");
    if (!cron) throw new Error("billing-report cron missing");
    billing.answer(503);
    expect(await cron.run(h.cronDeps)).toMatchObject({ day: DAY, posted: 0 });
    const mine = () => billing.received.filter((r) => JSON.parse(r.body).customer_id === c.id);
    expect(mine()).toHaveLength(1);

    billing.answer(200);
    clock.advance(3_600_000);
    await cron.run(h.cronDeps);
    expect(mine()).toHaveLength(2);
    const [failed, posted] = mine();
    expect(posted?.body).toBe(failed?.body);
    expect(JSON.parse(posted?.body ?? "{}")).toEqual({
      type: "mail.accepted.daily",
      customer_id: c.id,
      day: DAY,
      accepted: 4,
      idempotency_key: `mail-accepted-${c.id}-${DAY}`,
    });
    expect(posted?.headers["idempotency-key"]).toBe(failed?.headers["idempotency-key"]);
    expect(verifyWebhook(SECRET, posted?.body ?? "", String(posted?.headers["x-service-signature"]), { nowSeconds: clock.now().getTime() / 1000 })).toEqual({
      ok: true,
    });
    expect(
      verifyWebhook("another-secret", posted?.body ?? "", String(posted?.headers["x-service-signature"]), { nowSeconds: clock.now().getTime() / 1000 }).ok,
    ).toBe(false);
    expect(billing.received.some((r) => JSON.parse(r.body).customer_id === sandbox.id)).toBe(false);

    await cron.run(h.cronDeps);
    expect(mine()).toHaveLength(2);
  });
});
