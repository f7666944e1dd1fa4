import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, test, vi } from "vitest";
import { mailMessages, mailTemplates } from "../../lib/db/schema";
import { DEMO_TRANSACTIONAL_TEMPLATE } from "../../lib/mail/seed";
import { createHarness, describeResponse, type Harness, type Mail } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";
import { addRecipients, createJob, createNewsletter, people, waitForJob } from "../helpers/send-jobs";

/*
 * Fair sharing on the embedded queue: two customers' jobs started together progress
 * interleaved (the queue serves the customers' batches in turn), and a transactional send during them is
 * answered while the jobs are still sending (it never waits behind batches).
 */

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

const RECIPIENTS = 3_000; // six batches per job: more than one customer's lanes

test("two customers' jobs started together are sent interleaved; a transactional send in between is answered before they finish", async () => {
  const customers = await Promise.all(["Fair A", "Fair B"].map((name) => readyMailCustomer(h, name)));
  const jobs: string[] = [];
  for (const c of customers) {
    const templateId = await createNewsletter(h, c.mailFull);
    const job = await createJob(h, c.mailFull, { template_id: templateId });
    await addRecipients(h, c.mailFull, job.id, people(RECIPIENTS, `${c.id.slice(0, 8)}.example.com`));
    jobs.push(job.id as string);
  }
  const [a, b] = customers;
  if (!a || !b) throw new Error("two customers expected");
  const starts = await Promise.all(customers.map((c, i) => h.call("POST", `/mail/v1/send-jobs/${jobs[i]}/start`, { key: c.mailFull })));
  for (const r of starts) expect(r.status, describeResponse(r)).toBe(200);

  // While both jobs send: a transactional mail of the first customer.
  await vi.waitFor(
    async () => {
      const accepted = await h.db
        .select({ id: mailMessages.id })
        .from(mailMessages)
        .where(and(eq(mailMessages.sendJobId, jobs[0] ?? ""), eq(mailMessages.status, "accepted")))
        .limit(1);
      expect(accepted.length).toBe(1);
    },
    { timeout: 30_000, interval: 20 },
  );
  const [template] = await h.db
    .select()
    .from(mailTemplates)
    .where(and(eq(mailTemplates.customerId, a.id), eq(mailTemplates.name, DEMO_TRANSACTIONAL_TEMPLATE)));
  const send = await h.call<Mail["sendTemplate"]>("POST", `/mail/v1/templates/${template?.id}/send`, {
    key: a.mailFull,
    body: { to: "buyer@example.com", params: { order_number: "A-1", order_url: "https://shop.example.com/o/A-1" } },
  });
  expect(send.status, describeResponse(send)).toBe(200);
  expect(send.json.data.status).toBe("accepted");
  // Answered while the batches are still being sent: it did not wait for them.
  const stillSending = await h.db.select({ id: mailMessages.id }).from(mailMessages).where(eq(mailMessages.status, "pending")).limit(1);
  expect(stillSending.length).toBe(1);

  for (const [i, c] of customers.entries())
    expect(await waitForJob(h, c.mailReporting, jobs[i] ?? "", "completed")).toMatchObject({ recipients: { accepted: RECIPIENTS } });
  // The order in which the provider received the batches' messages (the simulator keeps them in order).
  const order: unknown[] = [];
  for (let offset = 0; ; offset += 500) {
    const page = a.simulator.messages({ limit: 500, offset }).messages;
    if (page.length === 0) break;
    order.push(...page.map((m) => m.Metadata.send_job_id).filter((id) => id === jobs[0] || id === jobs[1]));
  }
  expect(order.length).toBe(2 * RECIPIENTS);
  const span = (jobId: string | undefined) => ({ first: order.indexOf(jobId), last: order.lastIndexOf(jobId) });
  const [spanA, spanB] = [span(jobs[0]), span(jobs[1])];
  // Interleaved: neither job finished before the other had started sending.
  expect(spanA.first).toBeLessThan(spanB.last);
  expect(spanB.first).toBeLessThan(spanA.last);
}, 120_000);
