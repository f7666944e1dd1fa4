import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { BATCH_STEPS_CHANNEL, type BatchSteps } from "../../lib/mail/send-jobs/batch";
import { createHarness, describeResponse, type Harness } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";
import { addRecipients, createJob, createNewsletter, people, waitForJob } from "../helpers/send-jobs";

/**
 * Each batch of a send job publishes its own step timings on a diagnostics channel while something listens
 * (the scale bench sums them per window): one message per batch, whose recipients add up to the job's and
 * whose steps are the time the batch took, through the real in-process queue and the Postmark simulator.
 */
let h: Harness;
let c: Awaited<ReturnType<typeof readyMailCustomer>>;

beforeAll(async () => {
  h = await createHarness();
  c = await readyMailCustomer(h, "Stepped Co");
});
afterAll(async () => h.close());

describe("send-job batch step timings", () => {
  test("1,200 recipients: every batch publishes its steps, the recipients add up, the provider call is measured", async () => {
    const templateId = await createNewsletter(h, c.mailFull);
    const job = await createJob(h, c.mailFull, { template_id: templateId, params: { campaign: "Stepped" } });
    await addRecipients(h, c.mailFull, job.id, people(1200, "stepped.example.com"));

    const published: BatchSteps[] = [];
    const listener = (message: unknown) => published.push(message as BatchSteps);
    subscribe(BATCH_STEPS_CHANNEL, listener);
    try {
      const started = await h.call("POST", `/mail/v1/send-jobs/${job.id}/start`, { key: c.mailFull });
      expect(started.status, describeResponse(started)).toBe(200);
      await h.deps.queue.idle();
      const done = await waitForJob(h, c.mailFull, job.id, "completed");
      expect(done.recipients).toMatchObject({ total: 1200, accepted: 1200 });
    } finally {
      unsubscribe(BATCH_STEPS_CHANNEL, listener);
    }

    const sending = published.filter((steps) => steps.recipients > 0);
    expect(sending.map((steps) => steps.recipients).sort((a, b) => b - a)).toEqual([500, 500, 200]);
    for (const steps of sending) {
      for (const step of ["setup", "claim", "suppressions", "provider", "record", "next"] as const) {
        expect(steps[step], step).toBeGreaterThanOrEqual(0);
        expect(Number.isFinite(steps[step]), step).toBe(true);
      }
      // The provider call goes over loopback HTTP to the simulator: never free.
      expect(steps.provider).toBeGreaterThan(0);
      expect(steps.claim).toBeGreaterThan(0);
      expect(steps.record).toBeGreaterThan(0);
    }
  });
});
