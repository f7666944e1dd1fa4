import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { generateEncryptionKey, SecretBox } from "../../lib/core/secrets";
import { mailProviderConfigs } from "../../lib/db/schema";
import { BATCH_LEASE_MS } from "../../lib/mail/send-jobs/batch-store";
import { createHarness, describeResponse, type CronRun, type Harness, type Mail } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";
import { addRecipients, createJob, createNewsletter, holdBatches, people } from "../helpers/send-jobs";

/*
 * The `send-jobs-sweep` cron over HTTP (`/api/cron/send-jobs-sweep`, as Vercel Cron calls it) with two customers
 * whose batches the provider's lost answers left in doubt, one of them with a sealed server token that no longer
 * opens (sealed under another key, as another deployment's rows on a shared database): that customer is logged
 * and skipped, the other's batch is reconciled and its job completes; once the token opens again the next sweep
 * settles the first. Not an `*.http.test.ts`: the sweep takes every customer's work, so it runs on a database of
 * its own (PGlite), never on the suite's shared PostgreSQL.
 */

const CRON_SECRET = "sweep-isolation-cron-secret-0123456789";

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ env: { CRON_SECRET } });
});
afterAll(async () => h.close());

const sweep = async () => {
  const r = await h.call<CronRun>("GET", "/api/cron/send-jobs-sweep", { headers: { authorization: `Bearer ${CRON_SECRET}` } });
  expect(r.status, describeResponse(r)).toBe(200);
  return r.json.data.result as Record<string, number>;
};

describe("send-jobs sweep: one customer's failure is its own", () => {
  test("a customer whose sealed server token cannot be opened is logged and skipped; the other customer's batch in doubt is reconciled, its job completes", async () => {
    const batches = holdBatches(h);
    try {
      const broken = await readyMailCustomer(h, "Unreadable secret");
      const healthy = await readyMailCustomer(h, "Healthy");
      const jobs: { id: string; customer: typeof broken }[] = [];
      for (const customer of [broken, healthy]) {
        const job = await createJob(h, customer.mailFull, { template_id: await createNewsletter(h, customer.mailFull) });
        await addRecipients(h, customer.mailFull, job.id, people(20, `${customer.id.slice(0, 8)}.example.com`));
        expect((await h.call("POST", `/mail/v1/send-jobs/${job.id}/start`, { key: customer.mailFull })).status).toBe(200);
        jobs.push({ id: job.id, customer });
      }
      await h.deps.queue.idle();
      // Postmark takes both batches in and the answers are lost: both in doubt, the broken customer's claimed first
      // (so the sweep meets it first).
      broken.simulator.setFaults({ mode: "drop", afterAccept: true, count: 2 });
      for (const lane of batches.held.splice(0)) await batches.run(lane);
      const read = async (job: (typeof jobs)[number]) =>
        (await h.call<Mail["getSendJob"]>("GET", `/mail/v1/send-jobs/${job.id}`, { key: job.customer.mailReporting })).json.data;
      for (const job of jobs) expect(await read(job)).toMatchObject({ status: "running", recipients: { unknown: 20, accepted: 0 } });

      const [config] = await h.db.select().from(mailProviderConfigs).where(eq(mailProviderConfigs.customerId, broken.id));
      const sealed = config?.serverTokenSealed;
      if (!sealed) throw new Error("no sealed server token");
      await h.db
        .update(mailProviderConfigs)
        .set({ serverTokenSealed: new SecretBox(generateEncryptionKey()).seal(broken.serverToken) })
        .where(eq(mailProviderConfigs.customerId, broken.id));

      h.clock.advance(BATCH_LEASE_MS + 1000);
      const logStart = h.logLines.length;
      const result = await sweep();
      expect(result).toMatchObject({ reconciled: 1, skipped: 1 });
      const [brokenJob, healthyJob] = jobs;
      if (!brokenJob || !healthyJob) throw new Error("two jobs");
      expect(await read(healthyJob)).toMatchObject({ status: "completed", recipients: { total: 20, accepted: 20, unknown: 0 } });
      expect(await read(brokenJob)).toMatchObject({ status: "running", recipients: { unknown: 20, accepted: 0 } });
      const logged = h.logLines.slice(logStart).map((line) => JSON.parse(line) as { level: string; message: string; customer_id?: string; error?: string });
      const skipped = logged.filter((entry) => entry.message.startsWith("send-jobs sweep: this customer's work failed"));
      expect(skipped, JSON.stringify(logged, null, 1)).toHaveLength(1);
      expect(skipped[0]).toMatchObject({ level: "error", customer_id: broken.id });
      // The log names the failure, never the token.
      expect(h.logLines.slice(logStart).some((line) => line.includes(broken.serverToken))).toBe(false);

      // The token opens again (the operator re-entered it): the next sweep settles that customer too, nothing sent twice.
      await h.db.update(mailProviderConfigs).set({ serverTokenSealed: sealed }).where(eq(mailProviderConfigs.customerId, broken.id));
      expect(await sweep()).toMatchObject({ reconciled: 1, skipped: 0 });
      expect(await read(brokenJob)).toMatchObject({ status: "completed", recipients: { total: 20, accepted: 20, unknown: 0 } });
      expect(broken.simulator.stats().duplicates_by_metadata_message_id).toEqual({});
    } finally {
      batches.release();
    }
  });
});
