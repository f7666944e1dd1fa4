import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { mailSendJobRechecks } from "../../lib/db/schema";
import { askInterval, graceMs } from "../../lib/mail/send-jobs/provider-health";
import { recoverSendJobs } from "../../lib/mail/send-jobs/recovery";
import { createHarness, describeResponse, type Admin, type Harness, type Mail } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";
import { addRecipients, createJob, createNewsletter, holdBatches, people } from "../helpers/send-jobs";

/*
 * Reconciliation's evidence on a quiet server and its late truth, in process with the shared clock.
 * A batch refused with 429 by a gateway that cut the connection before the upload ended is in doubt: the
 * service's own probes give the evidence (lib/mail/send-jobs/provider-health.ts), and it is decided within
 * the grace + 2 minutes, each recipient received once.
 * Late truth (lib/mail/send-jobs/late-truth.ts): a batch in doubt is decided
 * "never received" on the evidence (a quiet server: the service's own probes show Postmark answering and its
 * search current), its recipients are sent again, and then Postmark's search shows the original call after
 * all (Postmark took it in late, beyond what the evidence rule assumes). The record follows Postmark: every
 * recipient `accepted`, the job's `sent_twice` counts them, and usage counts both copies, as Postmark does.
 */

let own: Harness;

/**
 * The next batch descriptor the queue delivered. The queue is not waited for as a whole: it also holds
 * reconciliation's later askings, due by the real clock while these tests move the shared one.
 */
function nextBatch(batches: ReturnType<typeof holdBatches>) {
  return vi.waitFor(
    () => {
      const [body] = batches.held.splice(0);
      if (!body) throw new Error("no batch yet");
      return body;
    },
    { timeout: 15_000, interval: 20 },
  );
}
beforeAll(async () => {
  own = await createHarness({ sharedClock: true });
});
afterAll(async () => own.close());

describe("evidence on a quiet server", () => {
  test("a batch refused with 429 whose connection was cut before the upload ended: in doubt, decided by the service's own probes within the grace + 2 minutes, each recipient received once, the job completed", async () => {
    const batches = holdBatches(own);
    try {
      const c = await readyMailCustomer(own, "Cut refusal");
      const job = await createJob(own, c.mailFull, { template_id: await createNewsletter(own, c.mailFull) });
      const added = await addRecipients(own, c.mailFull, job.id, people(40, "cut.example.com"));
      const ids: string[] = added.recipients.map((r: { message_id: string }) => r.message_id);
      await own.call("POST", `/mail/v1/send-jobs/${job.id}/start`, { key: c.mailFull });
      // The gateway refuses the next call and closes the connection before the upload ends.
      c.simulator.setThrottle({ rate: 1, durationMs: 1000, cut: true });
      await batches.run(await nextBatch(batches));
      c.simulator.setThrottle({ rate: 0, durationMs: 0 });
      expect(c.simulator.stats().throttled).toBe(1);
      const inDoubt = await own.call<Mail["getSendJob"]>("GET", `/mail/v1/send-jobs/${job.id}`, { key: c.mailReporting });
      expect(inDoubt.json.data?.recipients, describeResponse(inDoubt)).toMatchObject({ unknown: 40, accepted: 0 });

      // The sweep asks every asking interval (the queue's askings are due by the real clock, not waited for).
      const sweep = () => recoverSendJobs(own.mailDeps, { stalledForMs: 60 * 60_000, inFlightForMs: 60 * 60_000, customerId: c.id });
      const grace = graceMs(own.deps);
      const every = askInterval(grace);
      const start = own.clock.now().getTime();
      let decidedAfter = -1;
      for (let at = every; at <= grace + 120_000; at += every) {
        own.clock.set(new Date(start + at));
        await sweep();
        const [chunk] = await own.db
          .execute(sql`select count(*)::int as n from mail_messages where send_job_id = ${job.id} and status = 'unknown'`)
          .then((r) => (r as unknown as { rows: { n: number }[] }).rows);
        if (chunk?.n === 0) {
          decidedAfter = at;
          break;
        }
      }
      expect(decidedAfter, own.logLines.filter((l) => l.includes("reconcil")).join("\n")).toBeGreaterThan(0);
      expect(decidedAfter).toBeLessThanOrEqual(grace + 120_000);
      process.stdout.write(`cut 429: decided ${decidedAfter / 1000} s after the call (grace ${grace / 1000} s, asking every ${every / 1000} s)\n`);
      await batches.run(await nextBatch(batches));
      const done = await own.call<Mail["getSendJob"]>("GET", `/mail/v1/send-jobs/${job.id}`, { key: c.mailReporting });
      expect(done.json.data, describeResponse(done)).toMatchObject({ status: "completed", recipients: { total: 40, accepted: 40, unknown: 0, sent_twice: 0 } });
      expect(ids.map((id) => c.simulator.metadataMessageIdCount(id))).toEqual(ids.map(() => 1));
    } finally {
      batches.release();
    }
  });
});

describe("late truth", () => {
  test("a batch decided never received and sent again, which Postmark's search later shows it had received too: accepted, `sent_twice` on the job (API and admin), both copies in usage as Postmark counts them", async () => {
    const batches = holdBatches(own);
    try {
      const c = await readyMailCustomer(own, "Late truth");
      const job = await createJob(own, c.mailFull, { template_id: await createNewsletter(own, c.mailFull) });
      const added = await addRecipients(own, c.mailFull, job.id, people(20, "late.example.com"));
      const ids: string[] = added.recipients.map((r: { message_id: string }) => r.message_id);
      await own.call("POST", `/mail/v1/send-jobs/${job.id}/start`, { key: c.mailFull });
      // The call is answered 500: in doubt, and Postmark has nothing of it (yet).
      c.simulator.setFaults({ mode: "error500", count: 1 });
      await batches.run(await nextBatch(batches));
      const inDoubt = await own.call<Mail["getSendJob"]>("GET", `/mail/v1/send-jobs/${job.id}`, { key: c.mailReporting });
      expect(inDoubt.json.data?.recipients, describeResponse(inDoubt)).toMatchObject({ unknown: 20, accepted: 0, sent_twice: 0 });

      // A quiet server: a probe (the server had no answer within the asking interval) shows Postmark answering
      // promptly; once it has answered for the grace, a probe received after that shows the search current
      // and the batch is decided never received.
      const sweep = () => recoverSendJobs(own.mailDeps, { stalledForMs: 60 * 60_000, inFlightForMs: 60 * 60_000, customerId: c.id });
      const start = own.clock.now().getTime();
      const grace = graceMs(own.deps);
      const every = askInterval(grace);
      const firstProbe = every + 1000;
      const secondProbe = firstProbe + grace + every + 1000;
      for (const after of [firstProbe, secondProbe, secondProbe + 1000]) {
        own.clock.set(new Date(start + after));
        await sweep();
      }
      const [watch] = await own.db.select().from(mailSendJobRechecks).where(eq(mailSendJobRechecks.sendJobId, job.id));
      expect(watch, own.logLines.filter((l) => l.includes("reconcil")).join("\n")).toBeDefined();
      if (!watch) return;
      // Sent again, under a new batch id: accepted.
      await batches.run(await nextBatch(batches));
      const resent = await own.call<Mail["getSendJob"]>("GET", `/mail/v1/send-jobs/${job.id}`, { key: c.mailReporting });
      expect(resent.json.data, describeResponse(resent)).toMatchObject({ status: "completed", recipients: { accepted: 20, unknown: 0, sent_twice: 0 } });
      expect(ids.map((id) => c.simulator.metadataMessageIdCount(id))).toEqual(ids.map(() => 1));

      // Postmark takes the original call in late: the same messages under the original batch id.
      const auth = c.simulator.authenticate(c.serverToken);
      if (typeof auth === "object" && "ErrorCode" in auth) throw new Error(auth.Message);
      const copies = c.simulator.messages({ metadataKey: "send_job_id", metadataValue: job.id, limit: 100 }).messages;
      expect(copies).toHaveLength(20);
      const late = copies.map((m) => ({
        From: m.From,
        To: m.To,
        Subject: m.Subject,
        HtmlBody: "<p>The original call's copy</p>",
        MessageStream: m.MessageStream,
        Metadata: { ...m.Metadata, batch_id: watch.batchId },
      }));
      const taken = c.simulator.sendBatch(auth, late);
      expect(taken.status).toBe(200);
      expect(ids.map((id) => c.simulator.metadataMessageIdCount(id))).toEqual(ids.map(() => 2));

      // The next asking about the original call records what Postmark has.
      own.clock.set(new Date(watch.checkAfter.getTime() + 1000));
      await sweep();
      const twice = await own.call<Mail["getSendJob"]>("GET", `/mail/v1/send-jobs/${job.id}`, { key: c.mailReporting });
      expect(twice.json.data, describeResponse(twice)).toMatchObject({
        status: "completed",
        recipients: { total: 20, accepted: 20, failed: 0, unknown: 0, pending: 0, sent_twice: 20 },
      });
      const admin = await own.admin<Admin["getCustomerSendJob"]>("GET", `/v1/customers/${c.id}/mail/send-jobs/${job.id}`);
      expect(admin.json.data?.recipients, describeResponse(admin)).toMatchObject({ accepted: 20, sent_twice: 20 });
      const message = await own.call<Mail["getMessage"]>("GET", `/mail/v1/messages/${ids[0]}`, { key: c.mailReporting });
      expect(message.json.data).toMatchObject({ status: "accepted" });
      // Usage counts what Postmark received of the customer's mail (the probes are the service's own).
      const received = c.simulator.messages({ metadataKey: "send_job_id", metadataValue: job.id, limit: 100 }).total;
      expect(received).toBe(40);
      const usage = await own.call<Mail["getUsage"]>("GET", "/mail/v1/usage", { key: c.mailReporting });
      expect(usage.json.data, describeResponse(usage)).toMatchObject({ sent: received });
      // Asked again, nothing is counted twice more; the watch is over once every message is settled.
      own.clock.set(new Date(own.clock.now().getTime() + 3_600_000));
      await sweep();
      const later = await own.call<Mail["getSendJob"]>("GET", `/mail/v1/send-jobs/${job.id}`, { key: c.mailReporting });
      expect(later.json.data?.recipients).toMatchObject({ accepted: 20, sent_twice: 20 });
      const left = await own.db.execute(sql`select count(*)::int as n from mail_send_job_rechecks where send_job_id = ${job.id}`);
      expect((left as unknown as { rows: { n: number }[] }).rows[0]?.n).toBe(0);
    } finally {
      batches.release();
    }
  });
});
