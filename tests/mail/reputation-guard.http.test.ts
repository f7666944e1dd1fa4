import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { mailSendJobs } from "../../lib/db/schema";
import { simulatorTestAddress } from "../../lib/mail/provider/simulator/test-addresses";
import { createHarness, describeResponse, type Admin, type Harness, type Mail } from "../helpers/harness";
import { startHttpsReceiver } from "../helpers/https-receiver";
import { readyMailCustomer } from "../helpers/mail";
import { addRecipients, createJob, createNewsletter, holdBatches, people } from "../helpers/send-jobs";

/*
 * The reputation guard judged through real events: the Postmark simulator delivers, bounces and complains
 * for its test addresses and posts the events to the receiver over loopback, as Postmark would; the guard
 * counts them at ingest. The first batch of a job (500 recipients, the default minimum sample) runs, the
 * rest is held, so the sample is exactly that batch whatever order the events come in:
 * - hard bounces: 25 of 500 (exactly 5 %) keep the job running, 26 pause it (`bounce_rate`), and the
 *   customer's `job.paused` webhook (a receiver on loopback https) carries the reason and the sample;
 * - complaints, with the operator's threshold at 0.2 %: 1 of 500 (exactly) keeps it running, 2 pause it;
 * - Postmark's one-click unsubscribe pair is on every message of both sending paths (batch and Bulk API).
 */

let h: Harness;
let receiver: Awaited<ReturnType<typeof startHttpsReceiver>>;
beforeAll(async () => {
  receiver = await startHttpsReceiver("hooks.test");
  h = await createHarness({
    postmarkWebhooks: true,
    env: { ALLOW_LOOPBACK_OUTBOUND: "true", OUTBOUND_TRUSTED_CA: receiver.ca },
  });
});
afterAll(async () => {
  await h.close();
  await receiver.close();
});

type Outcome = "HardBounce" | "SpamComplaint";

/** A job of 501 whose first 500 hold `bad` addresses of `kind`; runs its first batch only and waits until every event is ingested. */
async function firstBatchJudged(name: string, kind: Outcome, bad: number, setup?: (c: Awaited<ReturnType<typeof readyMailCustomer>>) => Promise<void>) {
  const c = await readyMailCustomer(h, name);
  await setup?.(c);
  const job = await createJob(h, c.mailFull, { template_id: await createNewsletter(h, c.mailFull) });
  const tag = `${kind.toLowerCase()}-${c.id.slice(0, 8)}`;
  // The bad addresses spread through the batch, so the rates never depend on which events come first.
  const step = Math.floor(500 / bad);
  const recipients = Array.from({ length: 501 }, (_, i) =>
    i < 500 && i % step === 0 && i / step < bad ? { email: simulatorTestAddress(kind, `${tag}-${i}`) } : { email: `r${i}@${tag}.example.com` },
  );
  await addRecipients(h, c.mailFull, job.id, recipients);
  const batches = holdBatches(h);
  try {
    const started = await h.call("POST", `/mail/v1/send-jobs/${job.id}/start`, { key: c.mailFull });
    expect(started.status, describeResponse(started)).toBe(200);
    await h.deps.queue.idle();
    const first = batches.held.shift();
    if (!first) throw new Error("no batch published");
    await batches.run(first);
    await c.simulator.whenIdle();
    await h.deps.queue.idle();
  } finally {
    // What the batch published next stays unrun: the job sends nothing more in this test.
    batches.release();
  }
  const [row] = await h.db.select().from(mailSendJobs).where(eq(mailSendJobs.id, job.id));
  if (!row) throw new Error("job gone");
  const view = await h.call<Mail["getSendJob"]>("GET", `/mail/v1/send-jobs/${job.id}`, { key: c.mailReporting });
  return { c, jobId: job.id, row, view: view.json.data };
}

describe("thresholds exactly at the boundary, through real events", () => {
  test("hard bounces: 25 of 500 (exactly 5 %) keep the job running", { timeout: 180_000 }, async () => {
    const { row, view } = await firstBatchJudged("Boundary 25", "HardBounce", 25);
    expect({ outcomes: row.guardOutcomes, hardBounces: row.guardHardBounces }).toEqual({ outcomes: 500, hardBounces: 25 });
    expect(view).toMatchObject({ status: "running", pause_reason: null });
  });

  test("hard bounces: 26 of 500 pause it (`bounce_rate`); the customer's job.paused webhook carries the reason and the sample", {
    timeout: 180_000,
  }, async () => {
    const path = `/hooks/${crypto.randomUUID()}`;
    const { c, jobId, row, view } = await firstBatchJudged("Boundary 26", "HardBounce", 26, async (customer) => {
      const created = await h.call("POST", "/mail/v1/webhooks", {
        key: customer.mailFull,
        body: { url: `${receiver.origin}${path}`, events: ["job.paused", "job.completed"] },
      });
      expect(created.status, describeResponse(created)).toBe(201);
    });
    expect({ outcomes: row.guardOutcomes, hardBounces: row.guardHardBounces }).toEqual({ outcomes: 500, hardBounces: 26 });
    expect(view).toMatchObject({ status: "paused", pause_reason: "bounce_rate" });
    const delivered = await vi.waitFor(
      () => {
        const found = receiver.received.find((r) => r.path === path && r.headers["x-service-event"] === "job.paused");
        expect(found).toBeDefined();
        return found;
      },
      { timeout: 60_000, interval: 100 },
    );
    expect(JSON.parse(delivered?.body ?? "{}")).toMatchObject({
      event: "job.paused",
      send_job_id: jobId,
      pause_reason: "bounce_rate",
      sample: { outcomes: 500, hard_bounces: 26, complaints: 0, hard_bounce_rate: 0.052 },
      thresholds: { bounce_rate: 0.05, complaint_rate: 0.001, min_sample: 500 },
    });
    // The operator's overview of the customer counts it.
    const reputation = await h.admin<Admin["getCustomerMailReputation"]>("GET", `/v1/customers/${c.id}/mail/reputation`);
    expect(reputation.json.data.paused_jobs).toBe(1);
  });

  const complaintThreshold = async (c: { id: string }) => {
    const patched = await h.admin("PATCH", `/v1/customers/${c.id}/mail/reputation`, { complaint_rate: 0.002 });
    expect(patched.status, describeResponse(patched)).toBe(200);
  };

  test("complaints at an operator's threshold of 0.2 %: 1 of 500 (exactly) keeps the job running", { timeout: 180_000 }, async () => {
    const { row, view } = await firstBatchJudged("Complaint 1", "SpamComplaint", 1, complaintThreshold);
    expect({ outcomes: row.guardOutcomes, complaints: row.guardComplaints, hardBounces: row.guardHardBounces }).toEqual({
      outcomes: 500,
      complaints: 1,
      hardBounces: 0,
    });
    expect(view).toMatchObject({ status: "running", pause_reason: null });
  });

  test("complaints: 2 of 500 pause it (`complaint_rate`)", { timeout: 180_000 }, async () => {
    const { row, view } = await firstBatchJudged("Complaint 2", "SpamComplaint", 2, complaintThreshold);
    expect({ outcomes: row.guardOutcomes, complaints: row.guardComplaints }).toEqual({ outcomes: 500, complaints: 2 });
    expect(view).toMatchObject({ status: "paused", pause_reason: "complaint_rate" });
  });
});

describe("one-click unsubscribe on both sending paths", () => {
  for (const path of ["batch", "bulk"] as const) {
    test(`${path}: every message the simulator received carries List-Unsubscribe and List-Unsubscribe-Post: List-Unsubscribe=One-Click`, async () => {
      const c = await readyMailCustomer(h, `Headers ${path}`);
      if (path === "bulk") {
        const patched = await h.admin("PATCH", `/v1/customers/${c.id}/mail/provider`, { bulk_api_enabled: true });
        expect(patched.status, describeResponse(patched)).toBe(200);
      }
      const job = await createJob(h, c.mailFull, { template_id: await createNewsletter(h, c.mailFull) });
      const added = await addRecipients(h, c.mailFull, job.id, people(3, `headers-${path}-${c.id.slice(0, 8)}.example.com`));
      const viaBulkBefore = c.simulator.stats().received_via_bulk;
      expect((await h.call("POST", `/mail/v1/send-jobs/${job.id}/start`, { key: c.mailFull })).status).toBe(200);
      await vi.waitFor(
        async () => {
          const r = await h.call<Mail["getSendJob"]>("GET", `/mail/v1/send-jobs/${job.id}`, { key: c.mailReporting });
          expect(r.json.data.status).toBe("completed");
        },
        { timeout: 60_000, interval: 100 },
      );
      expect(c.simulator.stats().received_via_bulk - viaBulkBefore).toBe(path === "bulk" ? 3 : 0);
      for (const { message_id } of added.recipients) {
        const [sent] = c.simulator.messages({ metadataKey: "message_id", metadataValue: message_id }).messages;
        if (!sent) throw new Error(`message ${message_id} not at the simulator`);
        const headers = c.simulator.message(sent.MessageID).Headers;
        expect(headers.filter((x) => x.Name === "List-Unsubscribe-Post")).toEqual([{ Name: "List-Unsubscribe-Post", Value: "List-Unsubscribe=One-Click" }]);
        const unsubscribe = headers.filter((x) => x.Name === "List-Unsubscribe");
        expect(unsubscribe).toHaveLength(1);
        expect(unsubscribe[0]?.Value).toMatch(/^<https:\/\/.+>$/);
      }
    });
  }
});
