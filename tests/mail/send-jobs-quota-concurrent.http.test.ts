import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { mailTemplates } from "../../lib/db/schema";
import { DEMO_TRANSACTIONAL_TEMPLATE } from "../../lib/mail/seed";
import { BatchDescriptor } from "../../lib/mail/send-jobs/transitions";
import { createHarness, describeResponse, type Harness, type Mail } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";
import { createJob, createNewsletter, holdBatches, people } from "../helpers/send-jobs";

/*
 * The monthly limit and the per-job maximum hold while several customers' jobs run at
 * once. Each customer (monthly limit 1,000, at most 600 per job) races two adds of 600 for two jobs (exactly
 * one fits), fills the other to the limit, and is refused one more recipient (monthly limit) and a job of
 * 601 (per-job maximum, nothing kept). Their jobs are started together; after each customer's first batch,
 * five transactional mails take part of the room the jobs reserved, and then every remaining batch of
 * every customer runs at once: no customer may end with more accepted mail than its limit (the batches in
 * flight and the transactional sends count against the room before the next claim), and each sends
 * exactly up to it.
 */

const LIMIT = 1_000;
const PER_JOB = 600;
const TRANSACTIONAL = 5;

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

type Customer = Awaited<ReturnType<typeof readyMailCustomer>>;

async function add(c: Customer, jobId: string, recipients: { email: string }[]) {
  return h.call<Mail["addSendJobRecipients"]>("POST", `/mail/v1/send-jobs/${jobId}/recipients`, { key: c.mailFull, body: { recipients } });
}

async function sendTransactional(c: Customer, templateId: string, to: string) {
  return h.call<Mail["sendTemplate"]>("POST", `/mail/v1/templates/${templateId}/send`, {
    key: c.mailFull,
    body: { to, params: { order_number: "A-1", order_url: "https://shop.example.com/o/A-1" } },
  });
}

test("several customers at once: adds past the monthly limit or the per-job maximum are refused with 429 quota_exceeded, and none sends more than its limit", async () => {
  const customers = await Promise.all(["Quota A", "Quota B", "Quota C"].map((name) => readyMailCustomer(h, name)));
  for (const c of customers) await h.admin("PATCH", `/v1/customers/${c.id}`, { mail: { monthly_limit: LIMIT, max_per_job: PER_JOB } });

  const setups = await Promise.all(
    customers.map(async (c) => {
      const templateId = await createNewsletter(h, c.mailFull);
      const domain = `${c.id.slice(0, 8)}.example.com`;
      const x = await createJob(h, c.mailFull, { template_id: templateId });
      const y = await createJob(h, c.mailFull, { template_id: templateId });
      // Two adds at once that each fit but together pass the monthly limit: exactly one is taken.
      const raced = await Promise.all([add(c, x.id, people(PER_JOB, domain)), add(c, y.id, people(PER_JOB, domain, PER_JOB))]);
      expect(raced.map((r) => r.status).sort(), raced.map(describeResponse).join("\n")).toEqual([200, 429]);
      const refused = raced.find((r) => r.status === 429);
      expect(refused?.json).toMatchObject({ error: { code: "quota_exceeded" } });
      const full = raced[0]?.status === 200 ? x : y;
      const rest = full === x ? y : x;
      const fill = await add(c, rest.id, people(LIMIT - PER_JOB, domain, 2 * PER_JOB));
      expect(fill.status, describeResponse(fill)).toBe(200);

      // The monthly limit is taken by the two jobs: one more recipient is refused, for any job.
      const more = await add(c, rest.id, people(1, domain, 3 * PER_JOB));
      expect(more.status, describeResponse(more)).toBe(429);
      expect(more.json).toMatchObject({ error: { code: "quota_exceeded", message: expect.stringContaining("monthly sending limit") } });
      // Past the per-job maximum: refused as a whole, on `recipients`, nothing of it kept.
      const third = await createJob(h, c.mailFull, { template_id: templateId });
      const tooMany = await add(c, third.id, people(PER_JOB + 1, `big.${domain}`));
      expect(tooMany.status, describeResponse(tooMany)).toBe(429);
      expect(tooMany.json).toMatchObject({ error: { code: "quota_exceeded", details: [{ path: "recipients" }] } });
      const untouched = await h.call<Mail["getSendJob"]>("GET", `/mail/v1/send-jobs/${third.id}`, { key: c.mailFull });
      expect(untouched.json.data.recipients.total, describeResponse(untouched)).toBe(0);

      const [order] = await h.db
        .select({ id: mailTemplates.id })
        .from(mailTemplates)
        .where(and(eq(mailTemplates.customerId, c.id), eq(mailTemplates.name, DEMO_TRANSACTIONAL_TEMPLATE)));
      return { customer: c, full: full.id, rest: rest.id, order: order?.id ?? "" };
    }),
  );

  // Every job started together; the batches wait in the queue until the test runs them.
  const queue = holdBatches(h);
  try {
    const starts = await Promise.all(
      setups.flatMap((s) => [s.full, s.rest].map((id) => h.call("POST", `/mail/v1/send-jobs/${id}/start`, { key: s.customer.mailFull }))),
    );
    for (const r of starts) expect(r.status, describeResponse(r)).toBe(200);
    await h.deps.queue.idle();
    const descriptor = (body: unknown) => BatchDescriptor.parse(body);
    // Each customer's first batch (500 of its 600-recipient job), one customer after the other.
    for (const s of setups) {
      const first = queue.held.findIndex((body) => descriptor(body).job_id === s.full);
      const [body] = queue.held.splice(first, 1);
      await queue.run(body);
    }
    // Transactional mail takes part of the room the jobs reserved (it is not refused: the month has room).
    for (const s of setups) {
      const sends = await Promise.all(Array.from({ length: TRANSACTIONAL }, (_, i) => sendTransactional(s.customer, s.order, `buyer${i}@example.com`)));
      for (const r of sends) expect(r.json.data?.status, describeResponse(r)).toBe("accepted");
    }
    // Then every remaining batch of every customer at once, and whatever they publish.
    const waiting = queue.held.splice(0);
    await Promise.all(waiting.map((body) => queue.run(body)));
    await queue.drain();
  } finally {
    queue.release();
  }

  for (const s of setups) {
    const usage = await h.call<Mail["getUsage"]>("GET", "/mail/v1/usage", { key: s.customer.mailFull });
    expect(usage.json.data, describeResponse(usage)).toMatchObject({ sent: LIMIT, limit: LIMIT });
    const jobs = await Promise.all([s.full, s.rest].map((id) => h.call<Mail["getSendJob"]>("GET", `/mail/v1/send-jobs/${id}`, { key: s.customer.mailFull })));
    const [accepted, pending] = [0, 0].map((_, k) =>
      jobs.reduce((sum, r) => sum + (k === 0 ? r.json.data.recipients.accepted : r.json.data.recipients.pending), 0),
    );
    // The jobs sent what the transactional mail left of the month, and the rest waits, paused on the limit.
    expect({ accepted, pending }, jobs.map(describeResponse).join("\n")).toEqual({ accepted: LIMIT - TRANSACTIONAL, pending: TRANSACTIONAL });
    expect(jobs.map((r) => r.json.data.pause_reason)).toContain("monthly_limit");
    // The month is used up: a further transactional send is refused as well.
    const after = await sendTransactional(s.customer, s.order, "late@example.com");
    expect(after.status, describeResponse(after)).toBe(429);
    expect(after.json).toMatchObject({ error: { code: "quota_exceeded" } });
  }
}, 180_000);
