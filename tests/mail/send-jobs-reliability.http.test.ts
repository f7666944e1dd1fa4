import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { ConfigError, loadConfig } from "../../lib/core/config";
import { UNKNOWN_FOR_GOOD } from "../../lib/mail/send-jobs/reconcile";
import { recoverSendJobs } from "../../lib/mail/send-jobs/recovery";
import { createHarness, describeResponse, type Harness, type Mail, type Admin } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";
import { addRecipients, createJob, createNewsletter, holdBatches, newsletterBody, people, waitForJob } from "../helpers/send-jobs";

/*
 * Reliability through HTTP, in process: Postmark's 429 slows a job down and never fails it;
 * a message whose fate Postmark's search never shows ends `unknown` for good after the limit, counted on
 * the job for the operator; after a job nothing personal of its recipients is left in any table; the
 * reconciliation settings are validated at start.
 */

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

describe("Postmark back-pressure", () => {
  test("429 on every batch for a while (with Retry-After): the job stays running, backs off, completes when Postmark lets it through; nothing sent twice", async () => {
    const c = await readyMailCustomer(h, "Throttled");
    const job = await createJob(h, c.mailFull, { template_id: await createNewsletter(h, c.mailFull) });
    const added = await addRecipients(h, c.mailFull, job.id, people(60, "throttled.example.com"));
    // Throttled until lifted below (not for a fixed time: on a loaded machine the first batch can come after it).
    c.simulator.setThrottle({ rate: 1, durationMs: 600_000, retryAfterSeconds: 1 });
    expect((await h.call("POST", `/mail/v1/send-jobs/${job.id}/start`, { key: c.mailFull })).status).toBe(200);
    // Refused, waited out and tried again: at least two refusals.
    await vi.waitFor(() => expect(c.simulator.stats().throttled).toBeGreaterThan(1), { timeout: 30_000, interval: 20 });
    const during = await h.call<Mail["getSendJob"]>("GET", `/mail/v1/send-jobs/${job.id}`, { key: c.mailReporting });
    expect(during.json.data, describeResponse(during)).toMatchObject({ status: "running", recipients: { pending: 60, failed: 0, unknown: 0 } });
    c.simulator.setThrottle({ rate: 0, durationMs: 0 });
    const done = await waitForJob(h, c.mailReporting, job.id, "completed");
    expect(done.recipients).toMatchObject({ total: 60, accepted: 60, failed: 0, unknown: 0, pending: 0 });
    const ids: string[] = added.recipients.map((r: { message_id: string }) => r.message_id);
    expect(ids.map((id) => c.simulator.metadataMessageIdCount(id))).toEqual(ids.map(() => 1));
    // The hand-overs the refusals undid are not counted: each message went to Postmark once.
    const attempts = await h.db.execute(sql`select max(attempts)::int as max from mail_messages where send_job_id = ${job.id}`);
    expect((attempts as unknown as { rows: { max: number }[] }).rows[0]?.max).toBe(1);
  });
});

describe("in doubt without evidence", () => {
  test("a 5xx on a batch leaves it in doubt (never failed, the job keeps running); Postmark's search never shows whether it has it (its index stays behind, so not even the service's own probes show): asked again, never re-sent, a warning with the batch's id once it is in doubt for over a minute; past the limit `unknown` for good, counted on the job, the job completes", async () => {
    const own = await createHarness({ sharedClock: true });
    const batches = holdBatches(own);
    try {
      const c = await readyMailCustomer(own, "Quiet server");
      const job = await createJob(own, c.mailFull, { template_id: await createNewsletter(own, c.mailFull) });
      const added = await addRecipients(own, c.mailFull, job.id, people(30, "quiet.example.com"));
      await own.call("POST", `/mail/v1/send-jobs/${job.id}/start`, { key: c.mailFull });
      await own.deps.queue.idle();
      c.simulator.setFaults({ mode: "error500", count: 1 });
      // The search's index stays two days behind: not even the service's own probes show.
      c.simulator.setSearchDelay(48 * 3_600_000);
      const [lane] = batches.held.splice(0);
      if (!lane) throw new Error("no lane");
      await batches.run(lane);
      const inDoubt = await own.call<Mail["getSendJob"]>("GET", `/mail/v1/send-jobs/${job.id}`, { key: c.mailReporting });
      expect(inDoubt.json.data).toMatchObject({ status: "running", recipients: { unknown: 30, failed: 0, pending: 0 } });
      const sweep = () => recoverSendJobs(own.mailDeps, { stalledForMs: 60 * 60_000, inFlightForMs: 0, customerId: c.id });
      const calledAt = own.clock.now().getTime();
      for (const hours of [1, 12, 23]) {
        own.clock.set(new Date(calledAt + hours * 3_600_000));
        const swept = await sweep();
        expect(swept, own.logLines.filter((l) => l.includes("reconcil")).join("\n")).toMatchObject({ waiting: 1, reconciled: 0 });
      }
      // In doubt for over a minute: a warning names the job and the batch at every asking.
      const warned = own.logLines.filter((l) => l.includes("a batch has been in doubt for over a minute") && l.includes(job.id));
      expect(warned.length).toBeGreaterThanOrEqual(3);
      expect(warned[0]).toMatch(/"batch_id":"[0-9a-f-]{36}"/);
      expect(warned[0]).toContain('"in_doubt":30');
      const ids: string[] = added.recipients.map((r: { message_id: string }) => r.message_id);
      expect(ids.map((id) => c.simulator.metadataMessageIdCount(id))).toEqual(ids.map(() => 0));
      own.clock.set(new Date(calledAt + 25 * 3_600_000));
      expect(await sweep()).toMatchObject({ reconciled: 1 });
      const done = await own.admin<Admin["getCustomerSendJob"]>("GET", `/v1/customers/${c.id}/mail/send-jobs/${job.id}`);
      expect(done.json.data, describeResponse(done)).toMatchObject({ status: "completed", recipients: { total: 30, unknown: 30, accepted: 0, pending: 0 } });
      const message = await own.call<Mail["getMessage"]>("GET", `/mail/v1/messages/${ids[0]}`, { key: c.mailReporting });
      expect(message.json.data).toMatchObject({ status: "unknown", error: UNKNOWN_FOR_GOOD });
      expect(own.logLines.some((line) => line.includes("end `unknown` for good"))).toBe(true);
    } finally {
      batches.release();
      await own.close();
    }
  });
});

describe("personal data", () => {
  test("after a job nothing personal of its recipients is left in any table (names, addresses, personalised subjects)", async () => {
    const c = await readyMailCustomer(h, "Forgetful");
    const tpl = await h.call<Mail["createTemplate"]>("POST", "/mail/v1/templates", {
      key: c.mailFull,
      body: { ...newsletterBody("Personal"), subject: "For {{first_name}} at {{email}}" },
    });
    expect(tpl.status, describeResponse(tpl)).toBe(201);
    const templateId = tpl.json.data.id as string;
    const job = await createJob(h, c.mailFull, { template_id: templateId });
    const recipients = Array.from({ length: 40 }, (_, i) => ({
      email: `Quentin Zorblax${i} <qz${i}.private@forgetful.example.com>`,
      data: { first_name: `Zorblax${i}` },
    }));
    await addRecipients(h, c.mailFull, job.id, recipients);
    expect((await h.call("POST", `/mail/v1/send-jobs/${job.id}/start`, { key: c.mailFull })).status).toBe(200);
    await waitForJob(h, c.mailReporting, job.id, "completed");

    const tables = (await h.db.execute(
      sql`select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`,
    )) as unknown as {
      rows: { name: string }[];
    };
    expect(tables.rows.length).toBeGreaterThan(20);
    const found: string[] = [];
    for (const { name } of tables.rows) {
      const rows = (await h.db.execute(sql`select t::text as row from ${sql.identifier(name)} t`)) as unknown as { rows: { row: string }[] };
      for (const { row } of rows.rows) {
        if (/zorblax|forgetful\.example\.com|qz\d+\.private/i.test(row)) found.push(`${name}: ${row.slice(0, 200)}`);
      }
    }
    expect(found).toEqual([]);
  });
});

describe("settings", () => {
  test("the reconciliation grace has a floor of 30 s; zero, negative and the limit below an hour are refused with the variable named; the test-only override is refused on Vercel", () => {
    for (const value of ["0", "-5", "29"]) {
      expect(() => loadConfig({ SEND_RECONCILE_GRACE_SECONDS: value })).toThrow(/SEND_RECONCILE_GRACE_SECONDS/);
    }
    expect(() => loadConfig({ SEND_RECONCILE_LIMIT_HOURS: "0" })).toThrow(/SEND_RECONCILE_LIMIT_HOURS/);
    expect(loadConfig({ SEND_RECONCILE_GRACE_SECONDS: "30" }).SEND_RECONCILE_GRACE_SECONDS).toBe(30);
    expect(loadConfig({}).SEND_RECONCILE_LIMIT_HOURS).toBe(24);
    expect(() => loadConfig({ VERCEL: "1", SEND_RECONCILE_TEST_GRACE_MS: "1000" })).toThrow(ConfigError);
  });
});
