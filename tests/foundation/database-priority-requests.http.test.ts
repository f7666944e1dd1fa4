import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, test, vi } from "vitest";
import { mailMessages, mailTemplates } from "../../lib/db/schema";
import { createPriorityGate } from "../../lib/db/priority";
import { DEMO_TRANSACTIONAL_TEMPLATE } from "../../lib/mail/seed";
import { createHarness, type Harness } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";
import { addRecipients, createJob, createNewsletter, people, waitForJob } from "../helpers/send-jobs";

/*
 * Priority requests (lib/db/priority.ts): while one runs, background database work (a send job's batches)
 * starts no new statement or transaction, for at most 250 ms a pause; everything else goes on. On the
 * harness's database: PGlite here, the PostgreSQL server's pool in CI's PostgreSQL run (both drivers' gates).
 * (A drizzle query runs when awaited, so each background statement is awaited inside `asBackgroundWork`.)
 * While priority traffic flows (a priority request runs or ended less than a second ago), background steps
 * (a send job's batches) run one at a time and a batch takes 25 recipients instead of 500.
 */

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

/** Resolves when `release` is called: a priority request held open by the test. */
function held(): { done: Promise<void>; release: () => void } {
  let release: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (release = resolve));
  return { done, release };
}

test("a background statement and a background transaction wait while a priority request runs; foreground queries do not", async () => {
  const request = held();
  const running = h.priority.asPriorityRequest(async () => {
    // The request's own queries are not held up.
    await h.db.execute(sql`select 1`);
    await request.done;
  });
  const finished: string[] = [];
  const statement = h.priority.asBackgroundWork(async () => h.db.execute(sql`select 2`)).then(() => finished.push("statement"));
  const transaction = h.priority
    .asBackgroundWork(async () => h.db.transaction(async (tx) => tx.execute(sql`select 3`)))
    .then(() => finished.push("transaction"));
  // Another request's queries (not background) go on meanwhile.
  await h.db.execute(sql`select 4`);
  await h.db.execute(sql`select 5`);
  expect(finished).toEqual([]);
  request.release();
  await running;
  await Promise.all([statement, transaction]);
  expect(finished.sort()).toEqual(["statement", "transaction"]);
});

test("a pause ends after 250 ms even while the priority request still runs (background work is never starved)", async () => {
  const request = held();
  const running = h.priority.asPriorityRequest(() => request.done);
  const started = performance.now();
  let after = -1;
  const statement = h.priority.asBackgroundWork(async () => h.db.execute(sql`select 1`)).then(() => (after = performance.now() - started));
  await vi.waitFor(() => expect(after).toBeGreaterThanOrEqual(0), { timeout: 30_000, interval: 20 });
  expect(after).toBeGreaterThanOrEqual(240);
  request.release();
  await Promise.all([running, statement]);
});

test("the mail app serves POST /v1/templates/{id}/send as a priority request: a batch's statement waits for it", async () => {
  const c = await readyMailCustomer(h, "Priority sender");
  const [order] = await h.db
    .select({ id: mailTemplates.id })
    .from(mailTemplates)
    .where(and(eq(mailTemplates.customerId, c.id), eq(mailTemplates.name, DEMO_TRANSACTIONAL_TEMPLATE)));
  // A slow provider keeps the send open for 400 ms, longer than one pause (250 ms).
  c.simulator.setLatency(400);
  try {
    const sent = h.call("POST", `/mail/v1/templates/${order?.id}/send`, {
      key: c.mailFull,
      body: { to: "buyer@example.com", params: { order_number: "A-1", order_url: "https://shop.example.com/o/1" } },
    });
    // Once the send's message row exists, the request is at the provider.
    await vi.waitFor(
      async () => expect(await h.db.select({ id: mailMessages.id }).from(mailMessages).where(eq(mailMessages.customerId, c.id))).toHaveLength(1),
      {
        timeout: 30_000,
        interval: 10,
      },
    );
    const started = performance.now();
    let answered = false;
    void sent.then(() => (answered = true));
    await h.priority.asBackgroundWork(async () => h.db.execute(sql`select 1`));
    const waited = performance.now() - started;
    // Paused: until the send answered, or the whole 250 ms while it was still at the provider.
    expect(answered || waited >= 240, `waited ${waited.toFixed(0)} ms, send answered: ${answered}`).toBe(true);
    expect((await sent).status).toBe(200);
  } finally {
    c.simulator.setLatency(0);
  }
});

/** Until no priority request has run on this deployment's gate for a second. */
async function priorityTrafficStopped(): Promise<void> {
  await h.priority.trafficStopped();
  expect(h.priority.trafficFlows()).toBe(false);
}

test("background steps run one at a time while priority traffic flows and for a second after it, side by side otherwise", async () => {
  await priorityTrafficStopped();
  let running = 0;
  let most = 0;
  const step = () =>
    h.priority.asBackgroundStep(async () => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 30));
      running -= 1;
    });
  await Promise.all([step(), step(), step()]);
  expect(most).toBe(3);

  const request = held();
  const priority = h.priority.asPriorityRequest(() => request.done);
  expect(h.priority.trafficFlows()).toBe(true);
  most = 0;
  await Promise.all([step(), step(), step()]);
  expect(most).toBe(1);
  request.release();
  await priority;
  // Still flowing right after the request ended; over a second later, no longer.
  expect(h.priority.trafficFlows()).toBe(true);
  most = 0;
  await Promise.all([step(), step()]);
  expect(most).toBe(1);
  await priorityTrafficStopped();
});

test("a job sent while transactional mail flows goes out in batches of 25; once it has stopped, in one batch of up to 500", async () => {
  const c = await readyMailCustomer(h, "Small steps");
  const templateId = await createNewsletter(h, c.mailFull);
  /** The job's messages at the provider, counted per batch (each carries its batch id in Metadata). */
  const batchSizes = (jobId: string) => {
    const sizes = new Map<string, number>();
    for (const m of c.simulator.messages({ limit: 1_000, metadataKey: "send_job_id", metadataValue: jobId }).messages) {
      const batch = String(m.Metadata.batch_id);
      sizes.set(batch, (sizes.get(batch) ?? 0) + 1);
    }
    return [...sizes.values()];
  };
  const sendJob = async (n: number) => {
    const job = await createJob(h, c.mailFull, { template_id: templateId });
    await addRecipients(h, c.mailFull, job.id, people(n, `${job.id.slice(0, 8)}.example.com`));
    const started = await h.call("POST", `/mail/v1/send-jobs/${job.id}/start`, { key: c.mailFull });
    expect(started.status).toBe(200);
    const done = await waitForJob(h, c.mailReporting, job.id, "completed");
    expect(done.recipients.accepted).toBe(n);
    return { id: job.id, batchesCompleted: done.batches?.completed };
  };

  // Transactional traffic: a short priority request every 200 ms (nothing held open, so nothing pauses).
  const traffic = setInterval(() => void h.priority.asPriorityRequest(async () => undefined), 200);
  let during: { id: string; batchesCompleted: number | undefined };
  try {
    await h.priority.asPriorityRequest(async () => undefined);
    during = await sendJob(160);
  } finally {
    clearInterval(traffic);
  }
  const sizes = batchSizes(during.id);
  expect(sizes.reduce((a, b) => a + b, 0)).toBe(160);
  expect(Math.max(...sizes)).toBeLessThanOrEqual(25);
  expect(sizes.length).toBeGreaterThanOrEqual(7);
  expect(during.batchesCompleted).toBe(sizes.length);

  await priorityTrafficStopped();
  const after = await sendJob(160);
  expect(batchSizes(after.id)).toEqual([160]);
  expect(after.batchesCompleted).toBe(1);
}, 60_000);

test("each deployment has a gate of its own: another gate's priority traffic neither flows here nor pauses this background work", async () => {
  const other = createPriorityGate();
  const request = held();
  const running = other.asPriorityRequest(() => request.done);
  expect(other.trafficFlows()).toBe(true);
  await priorityTrafficStopped();
  const started = performance.now();
  await h.priority.asBackgroundWork(async () => h.db.execute(sql`select 1`));
  expect(performance.now() - started).toBeLessThan(200);
  request.release();
  await running;
});
