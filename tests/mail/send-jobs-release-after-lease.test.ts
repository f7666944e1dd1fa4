import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { mailMessages, mailSendJobChunks, mailSendJobs } from "../../lib/db/schema";
import { BATCH_LEASE_MS, claimBatch, releaseBatch } from "../../lib/mail/send-jobs/batch-store";
import { createHarness, describeResponse, type CronRun, type Harness } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";
import { addRecipients, createJob, createNewsletter, holdBatches, people } from "../helpers/send-jobs";

/*
 * A batch the provider turned away (429) is released by its worker: its messages `pending` again, its row
 * unclaimed. The answer can arrive after the claim's lease expired (a worker frozen with its call in
 * flight). The release must then leave alone what is no longer its claim: messages recovery marked lost
 * (reconciliation owns them, by this batch id) and a row another worker claimed since. The batches are
 * claimed with the engine's own statements (`claimBatch`), the lanes held, the sweep run over HTTP.
 * Not an `*.http.test.ts`: the sweep takes every customer's work, so it runs on a database of its own.
 */

const CRON_SECRET = "release-after-lease-cron-secret-0123456789";

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ env: { CRON_SECRET } });
});
afterAll(async () => h.close());

async function runningJob(label: string, recipients: number) {
  const customer = await readyMailCustomer(h, label);
  const job = await createJob(h, customer.mailFull, { template_id: await createNewsletter(h, customer.mailFull) });
  await addRecipients(h, customer.mailFull, job.id, people(recipients, `${customer.id.slice(0, 8)}.example.com`));
  const started = await h.call("POST", `/mail/v1/send-jobs/${job.id}/start`, { key: customer.mailFull });
  expect(started.status, describeResponse(started)).toBe(200);
  await h.deps.queue.idle();
  const [row] = await h.db.select({ run: mailSendJobs.run }).from(mailSendJobs).where(eq(mailSendJobs.id, job.id));
  return { jobId: job.id, run: row?.run ?? 0 };
}

async function claim(jobId: string, run: number) {
  const claimed = await claimBatch(h.db, jobId, run, 500, h.clock.now());
  if (claimed.kind !== "claimed") throw new Error(`no claim: ${claimed.kind}`);
  return { batchId: claimed.batchId, ids: claimed.rows.map((r) => r.messageId) };
}

const statesOf = async (jobId: string) =>
  (await h.db.select({ status: mailMessages.status, attempts: mailMessages.attempts }).from(mailMessages).where(eq(mailMessages.sendJobId, jobId))).map(
    (m) => `${m.status}/${m.attempts}`,
  );
const rowOf = async (jobId: string) => (await h.db.select().from(mailSendJobChunks).where(eq(mailSendJobChunks.sendJobId, jobId)))[0];

describe("a turned-away batch released after its lease expired", () => {
  test("within its lease: the messages are pending again with their hand-over count as before, the row unclaimed", async () => {
    const batches = holdBatches(h);
    try {
      const { jobId, run } = await runningJob("Release in time", 5);
      const { batchId, ids } = await claim(jobId, run);
      expect(await statesOf(jobId)).toEqual(Array(5).fill("sending/1"));
      expect(await releaseBatch(h.db, jobId, batchId, ids)).toBe("released");
      expect(await statesOf(jobId)).toEqual(Array(5).fill("pending/0"));
      expect(await rowOf(jobId)).toMatchObject({ batchId: null, claimedAt: null, leaseUntil: null });
    } finally {
      batches.release();
    }
  });

  test("another worker claimed the row since: the late release leaves that claim's messages sending and its row claimed", async () => {
    const batches = holdBatches(h);
    try {
      const { jobId, run } = await runningJob("Release after a new claim", 5);
      const first = await claim(jobId, run);
      // The first worker's call went unanswered for longer than its lease; the row went back (as
      // reconciliation puts back recipients Postmark never received) and a second worker claimed it.
      expect(await releaseBatch(h.db, jobId, first.batchId, first.ids)).toBe("released");
      h.clock.advance(BATCH_LEASE_MS + 1000);
      const second = await claim(jobId, run);
      expect(second.batchId).not.toBe(first.batchId);
      expect(await statesOf(jobId)).toEqual(Array(5).fill("sending/1"));

      expect(await releaseBatch(h.db, jobId, first.batchId, first.ids)).toBe("taken");
      expect(await statesOf(jobId)).toEqual(Array(5).fill("sending/1"));
      expect(await rowOf(jobId)).toMatchObject({ batchId: second.batchId });
      // The second claim's own release still works.
      expect(await releaseBatch(h.db, jobId, second.batchId, second.ids)).toBe("released");
      expect(await statesOf(jobId)).toEqual(Array(5).fill("pending/0"));
    } finally {
      batches.release();
    }
  });

  test("recovery marked the claim lost meanwhile: the late release changes nothing, the row stays with its batch id for reconciliation", async () => {
    const batches = holdBatches(h);
    try {
      // Last: the sweep leaves a reconciliation of this batch queued.
      const { jobId, run } = await runningJob("Release after recovery", 5);
      const { batchId, ids } = await claim(jobId, run);
      h.clock.advance(BATCH_LEASE_MS + 1000);
      const swept = await h.call<CronRun>("GET", "/api/cron/send-jobs-sweep", { headers: { authorization: `Bearer ${CRON_SECRET}` } });
      expect(swept.status, describeResponse(swept)).toBe(200);
      expect(await statesOf(jobId)).not.toContain("sending/1");
      const before = { states: await statesOf(jobId), row: await rowOf(jobId) };
      expect(before.row?.batchId).toBe(batchId);

      expect(await releaseBatch(h.db, jobId, batchId, ids)).toBe("taken");
      expect(await statesOf(jobId)).toEqual(before.states);
      expect(await rowOf(jobId)).toEqual(before.row);
    } finally {
      batches.release();
    }
  });
});
