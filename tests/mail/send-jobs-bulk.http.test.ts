import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { mailMessages, mailSendJobBulkRequests } from "../../lib/db/schema";
import { recoverSendJobs } from "../../lib/mail/send-jobs/recovery";
import { createHarness, describeResponse, type Admin, type Harness, type Mail } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";
import { addRecipients, createJob, createNewsletter, holdBatches, people } from "../helpers/send-jobs";

/*
 * The Bulk API path of send jobs: switched on per customer by the operator, the same engine (claims,
 * leases, exactly once, records) with one `/email/bulk` call per batch instead of `/email/batch`, and the
 * batch path as the fallback when Postmark refuses the bulk request as a whole.
 */

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

async function bulkJob(name: string, n: number, on: Harness = h) {
  const c = await readyMailCustomer(on, name);
  const patched = await on.admin<Admin["updateCustomerMailProvider"]>("PATCH", `/v1/customers/${c.id}/mail/provider`, { bulk_api_enabled: true });
  expect(patched.status, describeResponse(patched)).toBe(200);
  expect(patched.json.data.bulk_api_enabled).toBe(true);
  const tpl = await createNewsletter(on, c.mailFull);
  const job = await createJob(on, c.mailFull, { template_id: tpl });
  const added = await addRecipients(on, c.mailFull, job.id, people(n));
  const ids: string[] = added.recipients.map((r) => r.message_id);
  const read = async () => (await on.call<Mail["getSendJob"]>("GET", `/mail/v1/send-jobs/${job.id}`, { key: c.mailReporting })).json.data;
  return { c, job, ids, read, start: () => on.call("POST", `/mail/v1/send-jobs/${job.id}/start`, { key: c.mailFull }) };
}

describe("send jobs on Postmark's Bulk API", () => {
  test("every recipient once, via /email/bulk, compiled as the preview; each message keeps its ids in Metadata; a batch run twice sends nothing twice", async () => {
    const batches = holdBatches(h);
    try {
      const { c, job, ids, read, start } = await bulkJob("Bulk", 700);
      const before = c.simulator.stats().received;
      expect((await start()).status).toBe(200);
      await h.deps.queue.idle();
      const [first] = batches.held;
      if (!first) throw new Error("no batch published");
      await batches.run(first);
      await Promise.all([batches.run(first), batches.run(first)]);
      await batches.drain();
      const done = await read();
      expect(done).toMatchObject({ status: "completed", recipients: { total: 700, accepted: 700, pending: 0 } });
      expect(c.simulator.stats().received - before).toBe(700);
      expect(ids.every((id) => c.simulator.metadataMessageIdCount(id) === 1)).toBe(true);
      expect(c.simulator.stats().duplicates_by_metadata_message_id).toEqual({});
      // Two batches, two Bulk API requests recorded with Postmark's ids.
      const requests = await h.db.select().from(mailSendJobBulkRequests).where(eq(mailSendJobBulkRequests.jobId, job.id));
      expect(requests.map((r) => r.totalMessages).sort()).toEqual([200, 500]);
      expect(requests.every((r) => r.status === "Accepted")).toBe(true);
      // Shown on the job.
      expect(done.bulk_requests.map((r: { id: string }) => r.id).sort()).toEqual(requests.map((r) => r.requestId).sort());
      expect(done.bulk_requests[0]).toMatchObject({ status: "Accepted", percentage_completed: 0 });
      // The sweep asks Postmark for the progress of unfinished requests (those not checked for 30 s).
      await vi.waitFor(
        async () => {
          await h.db
            .update(mailSendJobBulkRequests)
            .set({ checkedAt: new Date(Date.now() - 60_000) })
            .where(eq(mailSendJobBulkRequests.jobId, job.id));
          await recoverSendJobs(h.mailDeps, { stalledForMs: 60 * 60_000, inFlightForMs: 60 * 60_000, customerId: c.id });
          const progress = (await read()).bulk_requests;
          expect(progress.map((r: { status: string; percentage_completed: number }) => [r.status, r.percentage_completed])).toEqual([
            ["Completed", 100],
            ["Completed", 100],
          ]);
        },
        { timeout: 60_000, interval: 50 },
      );
      // The message Postmark compiled: the personalised subject and HTML, with our ids in Metadata.
      const [message] = c.simulator.messages({ metadataKey: "message_id", metadataValue: ids[3] }).messages;
      const detail = c.simulator.message(message?.MessageID ?? "");
      expect(detail.Subject).toBe("News for Reader 3");
      expect(detail.HtmlBody).toContain("Hello Reader 3");
      expect(detail.Metadata).toMatchObject({ send_job_id: job.id, message_id: ids[3] });
      const [row] = await h.db
        .select()
        .from(mailMessages)
        .where(eq(mailMessages.id, ids[3] ?? ""));
      expect(row?.status === "accepted" || row?.status === "delivered").toBe(true);
    } finally {
      batches.release();
    }
  });

  test("a bulk request refused as a whole falls back to /email/batch for that batch: still once each", async () => {
    const batches = holdBatches(h);
    try {
      const { c, job, ids, read, start } = await bulkJob("Bulk fallback", 300);
      // The account has no Bulk API after all: Postmark refuses the request (simulated as an invalid request).
      c.simulator.setBulkApiEnabled(false);
      try {
        await start();
        await h.deps.queue.idle();
        await batches.drain();
      } finally {
        c.simulator.setBulkApiEnabled(true);
      }
      expect(await read()).toMatchObject({ status: "completed", recipients: { total: 300, accepted: 300 } });
      expect(ids.every((id) => c.simulator.metadataMessageIdCount(id) === 1)).toBe(true);
      expect(await h.db.select().from(mailSendJobBulkRequests).where(eq(mailSendJobBulkRequests.jobId, job.id))).toEqual([]);
    } finally {
      batches.release();
    }
  });

  test("a lost answer (connection dropped after Postmark took the bulk request): in doubt until reconciliation finds the batch by its metadata, then accepted, never sent again", async () => {
    // Its own deployment: the lane that got no answer publishes its next batch with a delay.
    const own = await createHarness();
    try {
      const batches = holdBatches(own);
      const { c, ids, read, start } = await bulkJob("Bulk dropped", 700, own);
      await start();
      await own.deps.queue.idle();
      const [lane1, lane2] = batches.held.splice(0, batches.held.length);
      if (!lane1 || !lane2) throw new Error("expected two lanes");
      c.simulator.setFaults({ mode: "drop", afterAccept: true, count: 1, path: "/email/bulk" });
      await batches.run(lane1);
      await batches.run(lane2);
      expect(await read()).toMatchObject({ status: "running", recipients: { total: 700, unknown: 500, accepted: 200, pending: 0 } });
      const swept = await recoverSendJobs(own.mailDeps, { stalledForMs: 60 * 60_000, inFlightForMs: 0, customerId: c.id });
      expect(swept).toMatchObject({ reconciled: 1 });
      expect(await read()).toMatchObject({ status: "completed", recipients: { total: 700, unknown: 0, accepted: 700, pending: 0 } });
      expect(ids.every((id) => c.simulator.metadataMessageIdCount(id) === 1)).toBe(true);
      const [settled] = await own.db
        .select()
        .from(mailMessages)
        .where(eq(mailMessages.id, ids[0] ?? ""));
      expect(settled?.status).toBe("accepted");
    } finally {
      await own.close();
    }
  });
});
