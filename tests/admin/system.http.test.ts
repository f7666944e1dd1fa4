import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { adsWebhookDeliveries, adsWebhooks, mailSendJobChunks } from "../../lib/db/schema";
import { createHarness, describeResponse, type Harness, type Admin } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";
import { addRecipients, createJob, createNewsletter, holdBatches, people, waitForJob } from "../helpers/send-jobs";

/**
 * `GET /admin/v1/system` against states built for it: a running job whose batches wait in the queue, a batch
 * whose outcome is in doubt, a failed webhook delivery, and the provider calls this process made.
 */
let h: Harness;
let c: Awaited<ReturnType<typeof readyMailCustomer>>;

beforeAll(async () => {
  h = await createHarness();
  c = await readyMailCustomer(h, "System Co");
});
afterAll(async () => h.close());

const system = async () => {
  const r = await h.admin<Admin["getSystem"]>("GET", "/v1/system");
  expect(r.status, describeResponse(r)).toBe(200);
  return r.json.data;
};

describe("GET /admin/v1/system", () => {
  test("operator token required", async () => {
    const r = await h.call("GET", "/admin/v1/system", { key: c.mailFull });
    expect(r.status, describeResponse(r)).toBe(401);
  });

  // The figures are system-wide: exact only on a database of this file's own (PGlite). The HTTP suite's second
  // run shares one PostgreSQL between all files, whose jobs and deliveries would count here too.
  const sharedDatabase = Boolean(process.env.DATABASE_URL);
  test.skipIf(sharedDatabase)(
    `queue depth and age, in-doubt batches, webhook failures and provider calls${sharedDatabase ? " — skipped: DATABASE_URL is set (a PostgreSQL shared with other test files; the figures are system-wide)" : ""}`,
    async () => {
      const idle = await system();
      expect(idle).toMatchObject({
        queue: { kind: "local", send_job_batches: { waiting: 0, oldest_wait_seconds: null }, webhook_deliveries: { due: 0, oldest_due_seconds: null } },
        send_jobs: { running: 0, paused: 0, batches_in_flight: 0 },
        reconcile: { batches_in_doubt: 0, oldest_in_doubt_seconds: null, unknown_messages: 0 },
        webhook_failures: { mail: { failed_last_24h: 0, retrying: 0 }, ads: { failed_last_24h: 0, retrying: 0 } },
      });
      // The counts are the process's since it started (other test files in the same worker included): differences.
      const callsBefore = idle.providers.postmark.calls;
      const errorsBefore = idle.providers.postmark.errors;

      // A running job of 1,200 recipients (three chunks) whose lanes are held: its batches wait in the queue.
      const held = holdBatches(h);
      const templateId = await createNewsletter(h, c.mailFull);
      const job = await createJob(h, c.mailFull, { template_id: templateId, params: { campaign: "System" } });
      await addRecipients(h, c.mailFull, job.id, people(1200, "system.example.com"));
      const started = await h.call("POST", `/mail/v1/send-jobs/${job.id}/start`, { key: c.mailFull });
      expect(started.status, describeResponse(started)).toBe(200);
      await h.deps.queue.idle();
      h.clock.advance(30_000);
      const waiting = await system();
      expect(waiting.send_jobs.running).toBe(1);
      expect(waiting.queue.send_job_batches).toEqual({ waiting: 3, oldest_wait_seconds: 30 });

      // One chunk claimed an hour ago and never recorded: in doubt, the reconciliation backlog.
      const [first] = await h.db.select().from(mailSendJobChunks).where(eq(mailSendJobChunks.sendJobId, job.id)).limit(1);
      await h.db
        .update(mailSendJobChunks)
        .set({ batchId: crypto.randomUUID(), claimedAt: new Date(h.clock.now().getTime() - 3600_000) })
        .where(eq(mailSendJobChunks.seq, first?.seq ?? -1));
      const doubt = await system();
      expect(doubt.reconcile).toMatchObject({ batches_in_doubt: 1, oldest_in_doubt_seconds: 3600 });
      expect(doubt.queue.send_job_batches.waiting).toBe(2);
      expect(doubt.send_jobs.batches_in_flight).toBe(0);
      await h.db
        .update(mailSendJobChunks)
        .set({ batchId: null, claimedAt: null })
        .where(eq(mailSendJobChunks.seq, first?.seq ?? -1));

      // The batches run: every provider call is counted with its latency.
      held.release();
      await held.drain();
      await waitForJob(h, c.mailFull, job.id, "completed");
      const after = await system();
      expect(after.send_jobs.running).toBe(0);
      expect(after.queue.send_job_batches.waiting).toBe(0);
      expect(after.providers.postmark.calls - callsBefore).toBeGreaterThanOrEqual(3);
      expect(after.providers.postmark.errors - errorsBefore).toBe(0);
      expect(after.providers.postmark.latency_ms?.p95).toBeGreaterThanOrEqual(0);

      // A delivery that exhausted its retries an hour ago, and one waiting for its second attempt.
      const [hook] = await h.db
        .insert(adsWebhooks)
        .values({ customerId: c.id, url: "https://hooks.example.com/ads", events: ["ad.status_changed"], secretSealed: "x" })
        .returning();
      const base = { webhookId: hook?.id ?? "", customerId: c.id, event: "ad.status_changed" as const, body: "{}" };
      await h.db.insert(adsWebhookDeliveries).values([
        {
          ...base,
          id: crypto.randomUUID(),
          status: "failed",
          attempts: 8,
          nextAttemptAt: h.clock.now(),
          completedAt: new Date(h.clock.now().getTime() - 3600_000),
        },
        { ...base, id: crypto.randomUUID(), status: "pending", attempts: 1, nextAttemptAt: new Date(h.clock.now().getTime() - 5_000) },
      ]);
      const hooks = await system();
      expect(hooks.webhook_failures.ads).toEqual({ failed_last_24h: 1, retrying: 1 });
      expect(hooks.queue.webhook_deliveries).toEqual({ due: 1, oldest_due_seconds: 5 });
    },
  );
});
