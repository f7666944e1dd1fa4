import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { findCronJob } from "../../lib/cron";
import { mailMessageRechecks, mailSendJobRechecks, mailTemplates } from "../../lib/db/schema";
import { askInterval, graceMs } from "../../lib/mail/send-jobs/provider-health";
import { recoverSendJobs } from "../../lib/mail/send-jobs/recovery";
import { DEMO_TRANSACTIONAL_TEMPLATE } from "../../lib/mail/seed";
import { createHarness, describeResponse, type Admin, type ErrorEnvelope, type Harness, type Mail } from "../helpers/harness";
import { startHttpsReceiver } from "../helpers/https-receiver";
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
 * The same for a transactional mail: decided never received (`failed`), then taken in by Postmark late.
 */

let own: Harness;
let billing: Awaited<ReturnType<typeof startHttpsReceiver>>;

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
  // The billing system: https on loopback with its own certificate.
  billing = await startHttpsReceiver("billing.test", () => ({ status: 200, body: "{}" }));
  own = await createHarness({
    sharedClock: true,
    env: {
      BILLING_URL: `${billing.origin}/usage`,
      BILLING_SECRET: "billing-secret-for-tests",
      ALLOW_LOOPBACK_OUTBOUND: "true",
      OUTBOUND_TRUSTED_CA: billing.ca,
    },
  });
});
afterAll(async () => {
  await own.close();
  await billing.close();
});

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

describe("late truth for a transactional mail", () => {
  test("a transactional send whose call Postmark keeps and takes in after it was decided never received: `failed`, then `accepted` with Postmark's MessageID and a late `accepted` event, a warning with its id; sent again by the customer under a new key, both count: usage and the billing report equal what Postmark received", async () => {
    // A day of its own, so the billing report holds only this customer's mail of this test.
    const day = "2031-05-20";
    own.clock.set(new Date(`${day}T10:00:00.000Z`));
    const c = await readyMailCustomer(own, "Late transactional");
    const [template] = await own.db
      .select({ id: mailTemplates.id })
      .from(mailTemplates)
      .where(and(eq(mailTemplates.customerId, c.id), eq(mailTemplates.name, DEMO_TRANSACTIONAL_TEMPLATE)));
    const send = (key: string) =>
      own.call<ErrorEnvelope & Mail["sendTemplate"]>("POST", `/mail/v1/templates/${template?.id}/send`, {
        key: c.mailFull,
        body: { to: "late.reader@example.com", params: { order_number: "L-1", order_url: "https://shop.example.com/o/L-1" } },
        headers: { "idempotency-key": key },
      });
    const messageOf = async (id: string) => (await own.call<Mail["getMessage"]>("GET", `/mail/v1/messages/${id}`, { key: c.mailReporting })).json.data;

    // Postmark keeps the call, but the connection closes without an answer: 500, outcome unknown.
    c.simulator.setFaults({ mode: "late", count: 1, path: "/email" });
    const first = await send("late-first");
    expect(first.status, describeResponse(first)).toBe(500);
    const firstId = first.json.error.message_id ?? "";
    expect(firstId).toMatch(/^[0-9a-f-]{36}$/);
    expect(c.simulator.stats().late_held).toBe(1);
    expect(c.simulator.metadataMessageIdCount(firstId)).toBe(0);

    // A quiet server: the service's probes show Postmark answering promptly and its search current, and
    // the mail is decided never received (within the grace + 2 minutes after the call's time-out).
    const sweep = () => recoverSendJobs(own.mailDeps, { stalledForMs: 60 * 60_000, inFlightForMs: 60 * 60_000, customerId: c.id });
    const grace = graceMs(own.deps);
    const every = askInterval(grace);
    const start = own.clock.now().getTime();
    const bound = 20_000 + grace + 120_000;
    for (let at = every; at <= bound && (await messageOf(firstId)).status === "unknown"; at += every) {
      own.clock.set(new Date(start + at));
      await sweep();
    }
    const failed = await messageOf(firstId);
    expect(failed.status, own.logLines.filter((l) => l.includes("reconcil") || l.includes("transactional")).join("\n")).toBe("failed");
    const [watch] = await own.db.select().from(mailMessageRechecks).where(eq(mailMessageRechecks.messageId, firstId));
    expect(watch).toBeDefined();

    // The customer sends it again, as the answer said it may, under a new key: accepted.
    const second = await send("late-second");
    expect(second.status, describeResponse(second)).toBe(200);
    const secondId = second.json.data.message_id;
    expect(second.json.data.status).toBe("accepted");

    // Postmark works through its backlog: the first call is taken in now.
    expect(c.simulator.takeInLateCalls()).toBe(1);
    expect(c.simulator.metadataMessageIdCount(firstId)).toBe(1);
    const [atPostmark] = c.simulator.messages({ metadataKey: "message_id", metadataValue: firstId, limit: 10 }).messages;

    // The next asking finds it: `accepted` with Postmark's MessageID, a late `accepted` event, a warning naming it.
    own.clock.set(new Date((watch?.checkAfter.getTime() ?? 0) + 1000));
    await sweep();
    const late = await messageOf(firstId);
    expect(late).toMatchObject({ status: "accepted", error: null });
    expect(late.events.filter((e) => e.type === "accepted")).toEqual([expect.objectContaining({ details: { reconciled: true, late: true } })]);
    const [row] = await own.db
      .execute(sql`select provider_message_id from mail_messages where id = ${firstId}`)
      .then((r) => (r as unknown as { rows: { provider_message_id: string }[] }).rows);
    expect(row?.provider_message_id).toBe(atPostmark?.MessageID);
    expect(own.logLines.some((l) => l.includes("received a mail decided as never received") && l.includes(firstId))).toBe(true);
    expect(await own.db.select().from(mailMessageRechecks).where(eq(mailMessageRechecks.messageId, firstId))).toEqual([]);

    // Billing equals what Postmark received of the customer's mail (its probes are the service's own).
    const received = [firstId, secondId].map((id) => c.simulator.metadataMessageIdCount(id)).reduce((a, b) => a + b, 0);
    expect(received).toBe(2);
    const usage = await own.call<Mail["getUsage"]>("GET", "/mail/v1/usage", { key: c.mailReporting });
    expect(usage.json.data, describeResponse(usage)).toMatchObject({ sent: received });
    // Asked again later, nothing more is counted.
    own.clock.set(new Date(own.clock.now().getTime() + 3_600_000));
    await sweep();
    expect((await own.call<Mail["getUsage"]>("GET", "/mail/v1/usage", { key: c.mailReporting })).json.data.sent).toBe(received);
    own.clock.set(new Date(Date.parse(`${day}T00:20:00.000Z`) + 86_400_000));
    const cron = findCronJob("billing-report");
    if (!cron) throw new Error("billing-report cron missing");
    await cron.run(own.cronDeps);
    const report = billing.received
      .map((r) => JSON.parse(r.body) as { customer_id: string; day: string; accepted: number })
      .find((b) => b.customer_id === c.id);
    expect(report).toMatchObject({ day, accepted: received });
  });
});
