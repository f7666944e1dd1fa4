import { and, eq, inArray } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { mailMessageEvents, mailMessages, mailProviderConfigs, mailSendJobChunks, mailSendJobs, mailSuppressions } from "../../lib/db/schema";
import { BATCH_LEASE_MS } from "../../lib/mail/send-jobs/batch-store";
import { recoverSendJobs } from "../../lib/mail/send-jobs/recovery";
import { createHarness, describeResponse, type Harness, type Mail } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";
import { addRecipients, createJob, createNewsletter, holdBatches, people, transientRows } from "../helpers/send-jobs";

/*
 * The engine under the at-least-once queue, made deterministic: batch descriptors are held and run by the
 * test, as often and in whatever order it likes. The provider is the Postmark simulator, through the real
 * client; its record of what it received (`metadataMessageIdCount`) is what "sent at most once" means.
 */

let h: Harness;

beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

async function preparedJob(name: string, recipients: { email: string; data?: Record<string, unknown> }[], on: Harness = h) {
  return preparedJobOnCustomer(on, await readyMailCustomer(on, name), recipients);
}

async function preparedJobOnCustomer<C extends Awaited<ReturnType<typeof readyMailCustomer>>>(
  on: Harness,
  c: C,
  recipients: { email: string; data?: Record<string, unknown> }[],
) {
  const tpl = await createNewsletter(on, c.mailFull);
  const job = await createJob(on, c.mailFull, { template_id: tpl });
  const added = await addRecipients(on, c.mailFull, job.id, recipients);
  const ids: string[] = added.recipients.map((r: { message_id: string }) => r.message_id);
  const read = async () => (await on.call<Mail["getSendJob"]>("GET", `/mail/v1/send-jobs/${job.id}`, { key: c.mailReporting })).json.data;
  const start = () => on.call<Mail["startSendJob"]>("POST", `/mail/v1/send-jobs/${job.id}/start`, { key: c.mailFull });
  return { c, job, ids, read, start };
}

async function runUntilCompleted(batches: ReturnType<typeof holdBatches>, read: () => Promise<{ status: string }>) {
  await vi.waitFor(
    async () => {
      while (batches.held.length > 0) {
        const body = batches.held.shift();
        if (body) await batches.run(body);
      }
      expect((await read()).status).toBe("completed");
    },
    { timeout: 20_000, interval: 20 },
  );
}

/**
 * A started job whose first batch is in flight: the provider holds the call (`holdMs`), and the batch's 500
 * messages are `sending`. `lane` is the descriptor that ran; `inFlight` settles when its record is written.
 */
async function batchInFlight(on: Harness, batches: ReturnType<typeof holdBatches>, name: string, recipients: number, holdMs = 1500) {
  const prepared = await preparedJob(name, people(recipients), on);
  await prepared.start();
  await on.deps.queue.idle();
  const [lane] = batches.held.splice(0, batches.held.length);
  if (!lane) throw new Error("no descriptor");
  prepared.c.simulator.setFaults({ mode: "slow", delayMs: holdMs, count: 1 });
  const inFlight = batches.run(lane);
  await vi.waitFor(async () => expect([...(await statuses(prepared.ids, on)).values()].filter((s) => s === "sending")).toHaveLength(500), {
    timeout: 5000,
    interval: 20,
  });
  return { ...prepared, lane, inFlight };
}

function consistent(job: { recipients: Record<string, number> }) {
  const r = job.recipients;
  expect(r.total).toBe(r.accepted + r.suppressed + r.invalid + r.failed + r.unknown + r.pending);
}

async function statuses(ids: readonly string[], on: Harness = h) {
  const rows = await on.db
    .select({ id: mailMessages.id, status: mailMessages.status })
    .from(mailMessages)
    .where(inArray(mailMessages.id, [...ids]));
  return new Map(rows.map((row) => [row.id, row.status]));
}

describe("exactly once towards the provider", () => {
  test("a batch descriptor delivered twice, one after the other and at the same time, sends nothing twice", async () => {
    const batches = holdBatches(h);
    try {
      const { c, ids, read, start } = await preparedJob("Twice", people(1200));
      expect((await start()).status).toBe(200);
      await h.deps.queue.idle();
      // 1,200 recipients: three batches, so three lanes were published.
      expect(batches.held).toHaveLength(3);
      const [first, second] = batches.held.splice(0, 2);
      if (!first || !second) throw new Error("descriptors missing");
      await batches.run(first);
      await batches.run(first);
      await Promise.all([batches.run(second), batches.run(second), batches.run(second)]);
      await batches.drain();
      const job = await read();
      expect(job).toMatchObject({ status: "completed", recipients: { total: 1200, accepted: 1200, pending: 0 } });
      consistent(job);
      expect(ids.every((id) => c.simulator.metadataMessageIdCount(id) === 1)).toBe(true);
      expect(c.simulator.stats().duplicates_by_metadata_message_id).toEqual({});
    } finally {
      batches.release();
    }
  });

  test("a claimed row whose messages are partly no longer pending (a cancel raced the claim) sends only the pending ones", async () => {
    const batches = holdBatches(h);
    try {
      const { c, ids, read, start } = await preparedJob("Raced", people(700));
      await start();
      await h.deps.queue.idle();
      // What a cancel does to ten recipients of the first row, just before the row is claimed.
      const released = ids.slice(0, 10);
      await h.db.update(mailMessages).set({ status: "failed", error: "cancelled" }).where(inArray(mailMessages.id, released));
      const [job] = await h.db
        .select()
        .from(mailSendJobs)
        .where(eq(mailSendJobs.id, (await read()).id));
      await h.db
        .update(mailSendJobs)
        .set({ failed: (job?.failed ?? 0) + 10, pending: (job?.pending ?? 0) - 10 })
        .where(eq(mailSendJobs.id, job?.id ?? ""));
      await batches.drain();
      const done = await read();
      expect(done).toMatchObject({ status: "completed", recipients: { total: 700, accepted: 690, failed: 10, pending: 0 } });
      consistent(done);
      expect(released.map((id) => c.simulator.metadataMessageIdCount(id))).toEqual(released.map(() => 0));
      expect(ids.slice(10).every((id) => c.simulator.metadataMessageIdCount(id) === 1)).toBe(true);
      expect([...(await statuses(released)).values()]).toEqual(released.map(() => "failed"));
    } finally {
      batches.release();
    }
  });

  /**
   * Runs held batch descriptors (and those they publish) until the job completes. Unlike `drain` it does
   * not wait for the queue to be idle: a delayed reconciliation or back-off message stays scheduled.
   */

  /** One sweep as the cron runs it, but with every claim counted as lost (nothing else is in flight here). */
  const sweep = (on: Harness, customerId: string) => recoverSendJobs(on.mailDeps, { stalledForMs: 60 * 60_000, inFlightForMs: 0, customerId });
  const GRACE_MS = 120_000;

  test("a lost answer (connection dropped after the provider accepted): the batch is `unknown` until reconciliation finds it at the provider: `accepted`, never sent again", async () => {
    // Its own deployment: after a batch without any answer the next one is published 30 s later, and that
    // delayed message would keep this queue busy for the other tests.
    const own = await createHarness();
    try {
      const batches = holdBatches(own);
      const { c, ids, read, start } = await preparedJob("Dropped", people(700), own);
      await start();
      await own.deps.queue.idle();
      const [lane1, lane2] = batches.held.splice(0, batches.held.length);
      if (!lane1 || !lane2) throw new Error("expected two lanes");
      c.simulator.setFaults({ mode: "drop", afterAccept: true, count: 1 });
      await batches.run(lane1);
      await batches.run(lane2);
      const inDoubt = await read();
      expect(inDoubt).toMatchObject({ status: "running", recipients: { total: 700, unknown: 500, accepted: 200, pending: 0 } });
      consistent(inDoubt);
      const rows = await own.db.select({ id: mailMessages.id, status: mailMessages.status }).from(mailMessages).where(inArray(mailMessages.id, ids));
      const unknown = rows.filter((row) => row.status === "unknown").map((row) => row.id);
      expect(unknown).toHaveLength(500);
      const [event] = await own.db
        .select()
        .from(mailMessageEvents)
        .where(and(eq(mailMessageEvents.messageId, unknown[0] ?? ""), eq(mailMessageEvents.type, "unknown")));
      expect(event?.identity).toBe("send:unknown");
      // Their addresses are kept while the outcome is in doubt.
      expect(await own.db.select().from(mailSendJobChunks).where(eq(mailSendJobChunks.sendJobId, inDoubt.id))).toHaveLength(1);

      // Postmark's search shows the batch: accepted, with Postmark's MessageID; nothing is sent again.
      expect(await sweep(own, c.id)).toMatchObject({ reconciled: 1 });
      const done = await read();
      expect(done).toMatchObject({ status: "completed", recipients: { total: 700, unknown: 0, accepted: 700, pending: 0 } });
      consistent(done);
      expect(ids.every((id) => c.simulator.metadataMessageIdCount(id) === 1)).toBe(true);
      const [settled] = await own.db
        .select()
        .from(mailMessages)
        .where(eq(mailMessages.id, unknown[0] ?? ""));
      expect(settled?.status).toBe("accepted");
      expect(c.simulator.message(settled?.providerMessageId ?? "").Metadata).toMatchObject({ message_id: unknown[0] });
      expect(await transientRows(own, inDoubt.id)).toBe(0);
      expect((await own.call<Mail["getUsage"]>("GET", "/mail/v1/usage", { key: c.mailReporting })).json.data.sent).toBe(700);
    } finally {
      await own.close();
    }
  });

  test("the provider never got the batch (connection dropped before it was read), on a server without other traffic: not sent again until Postmark has answered promptly for longer than the call can have been held (at least the grace period) and its search shows a message received after that; the service's own probes give that evidence; then sent again, once", async () => {
    // The simulator reads the test's clock, so "received later" can be arranged without waiting.
    const own = await createHarness({ sharedClock: true });
    const batches = holdBatches(own);
    try {
      const { c, ids, read, start } = await preparedJob("Never", people(700), own);
      await start();
      await own.deps.queue.idle();
      const [lane1, lane2] = batches.held.splice(0, batches.held.length);
      if (!lane1 || !lane2) throw new Error("expected two lanes");
      c.simulator.setFaults({ mode: "drop", count: 1 });
      await batches.run(lane1);
      await batches.run(lane2);
      expect(await read()).toMatchObject({ status: "running", recipients: { unknown: 500, accepted: 200 } });
      const probes = () => c.simulator.messages({ metadataKey: "probe_id", limit: 1000 }).total;
      const later = (ms: number) => own.clock.set(new Date(own.clock.now().getTime() + ms));

      // Absent from the search, and the call that left it in doubt has just ended: no evidence, no probe yet
      // (the server's own traffic gets an asking interval to give it).
      expect(await sweep(own, c.id)).toMatchObject({ reconciled: 0, waiting: 1 });
      expect(probes()).toBe(0);
      // Nothing answered for an asking interval: a probe, answered promptly, starts the run of prompt answers.
      later(GRACE_MS / 4);
      expect(await sweep(own, c.id)).toMatchObject({ reconciled: 0, waiting: 1 });
      expect(probes()).toBe(1);
      // Answering for half the grace period: not yet long enough, nothing is sent again.
      later(GRACE_MS / 2);
      expect(await sweep(own, c.id)).toMatchObject({ reconciled: 0, waiting: 1 });
      expect(await read()).toMatchObject({ status: "running", recipients: { unknown: 500, accepted: 200 } });
      // Past the moment: the search shows nothing received after it yet, so one more probe goes out ...
      later(GRACE_MS);
      const before = probes();
      expect(await sweep(own, c.id)).toMatchObject({ reconciled: 0, waiting: 1 });
      expect(probes()).toBe(before + 1);
      // ... and once the search shows it: the evidence. The batch goes out again.
      expect(await sweep(own, c.id)).toMatchObject({ reconciled: 1 });
      await runUntilCompleted(batches, read);
      const done = await read();
      expect(done).toMatchObject({ status: "completed", recipients: { total: 700, unknown: 0, accepted: 700, pending: 0 } });
      consistent(done);
      expect(ids.every((id) => c.simulator.metadataMessageIdCount(id) === 1)).toBe(true);
      const handovers = await own.db.select({ attempts: mailMessages.attempts }).from(mailMessages).where(inArray(mailMessages.id, ids));
      expect(handovers.filter((m) => m.attempts === 2)).toHaveLength(500);
      expect(await transientRows(own, done.id)).toBe(0);
    } finally {
      batches.release();
      await own.close();
    }
  });

  test("Postmark's search lags behind the send, or cannot be asked: messages stay `unknown` (nothing re-sent) until it answers", async () => {
    const own = await createHarness();
    try {
      const batches = holdBatches(own);
      const { c, ids, read, start } = await preparedJob("Lagging", people(300), own);
      await start();
      await own.deps.queue.idle();
      const [lane] = batches.held.splice(0, batches.held.length);
      if (!lane) throw new Error("expected one lane");
      c.simulator.setFaults({ mode: "drop", afterAccept: true, count: 1 });
      c.simulator.setSearchDelay(60 * 60_000);
      await batches.run(lane);
      // Within the grace period an empty search proves nothing.
      expect(await sweep(own, c.id)).toMatchObject({ waiting: 1 });
      // Postmark unreachable with this customer's token (401): nothing can be concluded, even past the grace period.
      own.clock.set(new Date(own.clock.now().getTime() + GRACE_MS));
      const [config] = await own.db.select().from(mailProviderConfigs).where(eq(mailProviderConfigs.customerId, c.id));
      await own.db
        .update(mailProviderConfigs)
        .set({ serverTokenSealed: own.deps.secrets.seal("not-a-server-token") })
        .where(eq(mailProviderConfigs.customerId, c.id));
      expect(await sweep(own, c.id)).toMatchObject({ unavailable: 1, reconciled: 0 });
      expect(await read()).toMatchObject({ status: "running", recipients: { unknown: 300 } });
      await own.db.update(mailProviderConfigs).set({ serverTokenSealed: config?.serverTokenSealed }).where(eq(mailProviderConfigs.customerId, c.id));
      c.simulator.setSearchDelay(0);
      expect(await sweep(own, c.id)).toMatchObject({ reconciled: 1 });
      expect(await read()).toMatchObject({ status: "completed", recipients: { unknown: 0, accepted: 300 } });
      expect(ids.every((id) => c.simulator.metadataMessageIdCount(id) === 1)).toBe(true);
    } finally {
      await own.close();
    }
  });

  test("provider events settle `unknown` messages first: the job counts them as accepted, and the next reconciliation ends the job", async () => {
    const own = await createHarness({ postmarkWebhooks: true });
    const batches = holdBatches(own);
    try {
      const { c, ids, read, start } = await preparedJob("Events first", people(200), own);
      await start();
      await own.deps.queue.idle();
      const [lane] = batches.held.splice(0, batches.held.length);
      if (!lane) throw new Error("expected one lane");
      c.simulator.setFaults({ mode: "drop", afterAccept: true, count: 1 });
      await batches.run(lane);
      // The simulator posts a Delivery for each message it accepted; each corrects an `unknown` message.
      await vi.waitFor(async () => expect((await read()).recipients).toMatchObject({ unknown: 0, accepted: 200 }), { timeout: 60_000, interval: 50 });
      consistent(await read());
      // The sweep ends the job, unless the batch's own queued asking (every quarter of the grace) did already.
      const swept = await sweep(own, c.id);
      expect(swept.reconciled + swept.waiting + swept.unavailable).toBeLessThanOrEqual(1);
      expect(swept).toMatchObject({ waiting: 0, unavailable: 0 });
      expect(await read()).toMatchObject({ status: "completed", recipients: { total: 200, accepted: 200, unknown: 0 } });
      expect(ids.every((id) => c.simulator.metadataMessageIdCount(id) === 1)).toBe(true);
    } finally {
      batches.release();
      await own.close();
    }
  });

  test("a crash between the provider call and the record: recovery marks the in-flight messages unknown, the late answer still settles them; the job resumes under a new run and the old run's descriptors do nothing", async () => {
    // Its own deployment: recovery publishes a delayed reconciliation that would keep a shared queue busy.
    const own = await createHarness();
    const batches = holdBatches(own);
    try {
      const { c, job, ids, read, lane: lane1, inFlight } = await batchInFlight(own, batches, "Crash", 900);

      // A call in flight whose worker renews its lease is never taken for lost…
      expect(await recoverSendJobs(own.mailDeps, { stalledForMs: 60 * 60_000, inFlightForMs: 0, customerId: c.id })).toMatchObject({ unknown: 0 });
      // …but a restart takes everything claimed before it for lost (as if this worker were the dead process's).
      const bootedAt = new Date(own.clock.now().getTime() + 1);
      const recovered = await recoverSendJobs(own.mailDeps, { stalledForMs: 0, inFlightForMs: 0, bootedAt, customerId: c.id });
      // The provider has not handled the call yet: in doubt, and no evidence that it never will.
      expect(recovered).toMatchObject({ unknown: 500, waiting: 1, resumed: 1 });
      await inFlight;
      await batches.run(lane1);
      await runUntilCompleted(batches, read);

      const done = await read();
      expect(done).toMatchObject({ id: job.id, status: "completed", recipients: { total: 900, unknown: 0, accepted: 900, pending: 0 } });
      consistent(done);
      expect(ids.every((id) => c.simulator.metadataMessageIdCount(id) === 1)).toBe(true);
      expect(await transientRows(own, job.id)).toBe(0);
    } finally {
      batches.release();
      await own.close();
    }
  });
});

/** Skips a test that needs a second connection's locks (PGlite is one connection: nothing there waits for a lock). */
const serverOnly = process.env.DATABASE_URL ? "" : " — skipped: DATABASE_URL is not set (PGlite is one connection, so no statement waits for another's lock)";

describe(`recovery racing a live worker on a server's locks${serverOnly}`, () => {
  // Both recoveries: the cron's sweep once the claim's lease ran out, and start-up's, which takes every claim
  // made before it for lost (and cuts the claim's lease, a write to the batch's row of addresses as well).
  test.skipIf(serverOnly !== "").each(["the lease ran out", "a restart"] as const)(
    "recovery marks a batch lost (%s) while the worker's record waits for the same rows: the record settles them from `unknown`, every counter moves once, no deadlock",
    async (why) => {
      const own = await createHarness();
      const batches = holdBatches(own);
      const blocker = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await blocker.connect();
      try {
        const { c, job, ids, read, inFlight } = await batchInFlight(own, batches, "Race", 500, 3000);
        // Another transaction holds the batch's messages: recovery's update queues behind it first, the worker's
        // record (once the provider answered) second; then the holder lets go, recovery commits `unknown`
        // while the record's statement is already running.
        await blocker.query("begin");
        await blocker.query("select id from mail_messages where id = any($1::uuid[]) for update", [ids]);
        // The claim's lease runs out (its renewal is 20 s away), or the process counts as restarted after the claim.
        if (why === "the lease ran out") own.clock.advance(BATCH_LEASE_MS);
        const bootedAt = why === "a restart" ? new Date(own.clock.now().getTime() + 1) : undefined;
        const recovery = recoverSendJobs(own.mailDeps, { stalledForMs: 60 * 60_000, inFlightForMs: 0, bootedAt, customerId: c.id });
        const waitingForLocks = async () =>
          (
            await blocker.query<{ n: number }>(
              "select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()",
            )
          ).rows[0]?.n;
        // Recovery waits before the provider answers (it holds the call 3 s), so the record queues behind it.
        await vi.waitFor(async () => expect(await waitingForLocks()).toBeGreaterThanOrEqual(1), { timeout: 5000, interval: 20 });
        await vi.waitFor(async () => expect(await waitingForLocks()).toBe(2), { timeout: 10_000, interval: 20 });
        await blocker.query("commit");
        expect(await recovery).toMatchObject({ unknown: 500 });
        await inFlight;
        // The worker's definite answer settled what recovery had marked: counted out of `pending` once.
        const recorded = await read();
        consistent(recorded);
        expect(recorded.recipients).toMatchObject({ accepted: 500, unknown: 0, pending: 0 });
        await runUntilCompleted(batches, read);

        const done = await read();
        expect(done).toMatchObject({ id: job.id, status: "completed", recipients: { total: 500, unknown: 0, accepted: 500, pending: 0 } });
        consistent(done);
        expect(ids.every((id) => c.simulator.metadataMessageIdCount(id) === 1)).toBe(true);
      } finally {
        await blocker.end();
        batches.release();
        await own.close();
      }
    },
  );
});

describe("suppressions, refusals and the provider's answers", () => {
  test("an address suppressed in the newsletter mirror is `suppressed` without a provider call; one suppressed only for transactional mail is sent", async () => {
    const { c, ids, read, start } = await preparedJob("Mirror", [
      { email: "gone@example.com" },
      { email: "Transactional-Only@example.com" },
      { email: "kept@example.com" },
    ]);
    const now = h.clock.now();
    await h.db.insert(mailSuppressions).values([
      { customerId: c.id, stream: "newsletter", email: "gone@example.com", active: true, reason: "unsubscribe", changedAt: now },
      { customerId: c.id, stream: "transactional", email: "transactional-only@example.com", active: true, reason: "hard_bounce", changedAt: now },
    ]);
    await start();
    await h.deps.queue.idle();
    const job = await read();
    expect(job).toMatchObject({ status: "completed", recipients: { suppressed: 1, accepted: 2 } });
    expect(c.simulator.metadataMessageIdCount(ids[0] ?? "")).toBe(0);
    const message = await h.call<Mail["getMessage"]>("GET", `/mail/v1/messages/${ids[0]}`, { key: c.mailReporting });
    // The subject as the job has it: the personalised one would keep the recipient's name after the job.
    expect(message.json.data).toMatchObject({
      status: "suppressed",
      error: "The address is suppressed on the newsletter stream.",
      subject: "News for {{first_name}}",
    });
  });

  test("Postmark's own suppression (406) makes the message `suppressed`", async () => {
    const { c, ids, read, start } = await preparedJob("Provider suppression", [{ email: "inactive@example.com" }, { email: "active@example.com" }]);
    const server = c.simulator.servers.get(c.serverToken);
    if (!server) throw new Error("server not registered");
    c.simulator.createSuppressions(server, "broadcast", { Suppressions: [{ EmailAddress: "inactive@example.com" }] });
    await start();
    await h.deps.queue.idle();
    expect((await read()).recipients).toMatchObject({ suppressed: 1, accepted: 1 });
    expect((await statuses(ids)).get(ids[0] ?? "")).toBe("suppressed");
  });

  test("the provider refusing the job as a whole (unknown server token) fails the job; every recipient ends `failed`", async () => {
    const { c, read, start } = await preparedJob("Refused", people(600));
    await h.db
      .update(mailProviderConfigs)
      .set({ serverTokenSealed: h.deps.secrets.seal("not-a-registered-token") })
      .where(eq(mailProviderConfigs.customerId, c.id));
    await start();
    await h.deps.queue.idle();
    const job = await read();
    expect(job).toMatchObject({ status: "failed", recipients: { total: 600, failed: 600, pending: 0 } });
    expect(job.error).toContain("Postmark error 10");
    consistent(job);
  });

  test("sandbox jobs go through Postmark's test token: accepted, nothing recorded by the provider, not counted in usage", async () => {
    const c = await readyMailCustomer(h, "Sandbox jobs");
    await h.admin("PATCH", `/v1/customers/${c.id}`, { mail: { mode: "sandbox" } });
    const job = await createJob(h, c.mailFull, { template_id: await createNewsletter(h, c.mailFull) });
    const added = await addRecipients(h, c.mailFull, job.id, people(3));
    const apiTest = c.simulator.stats().api_test;
    expect((await h.call("POST", `/mail/v1/send-jobs/${job.id}/start`, { key: c.mailFull })).status).toBe(200);
    await h.deps.queue.idle();
    const done = (await h.call<Mail["getSendJob"]>("GET", `/mail/v1/send-jobs/${job.id}`, { key: c.mailReporting })).json.data;
    expect(done).toMatchObject({ status: "completed", mode: "sandbox", recipients: { accepted: 3 } });
    expect(c.simulator.stats().api_test).toBe(apiTest + 3);
    expect(added.recipients.every((r: { message_id: string }) => c.simulator.metadataMessageIdCount(r.message_id) === 0)).toBe(true);
    const usage = await h.call<Mail["getUsage"]>("GET", "/mail/v1/usage", { key: c.mailReporting });
    expect(usage.json.data.sent).toBe(0);
  });
});

describe("pause and resume", () => {
  test("sending blocked mid-job pauses it (recipients stay pending); start resumes once unblocked", async () => {
    const batches = holdBatches(h);
    try {
      const { c, job, read, start } = await preparedJob("Paused by block", people(700));
      await start();
      await h.deps.queue.idle();
      await h.admin("PATCH", `/v1/customers/${c.id}`, { mail: { sending_blocked: true } });
      await batches.drain();
      expect(await read()).toMatchObject({ status: "paused", pause_reason: "sending_blocked", recipients: { pending: 700 } });
      expect((await start()).status).toBe(403);
      await h.admin("PATCH", `/v1/customers/${c.id}`, { mail: { sending_blocked: false } });
      const resumed = await start();
      expect(resumed.status, describeResponse(resumed)).toBe(200);
      expect(resumed.json.data).toMatchObject({ status: "running", pause_reason: null });
      await batches.drain();
      expect(await read()).toMatchObject({ id: job.id, status: "completed", recipients: { accepted: 700 } });
    } finally {
      batches.release();
    }
  });

  test("the monthly limit reached mid-job: the batch takes what is left, the job pauses; resume is 429 until the limit is raised", async () => {
    const batches = holdBatches(h);
    try {
      const { c, read, start } = await preparedJob("Paused by limit", people(700));
      await start();
      await h.deps.queue.idle();
      await h.admin("PATCH", `/v1/customers/${c.id}`, { mail: { monthly_limit: 300 } });
      await batches.drain();
      const paused = await read();
      expect(paused).toMatchObject({ status: "paused", pause_reason: "monthly_limit", recipients: { accepted: 300, pending: 400 } });
      consistent(paused);
      const refused = await start();
      expect(refused.status, describeResponse(refused)).toBe(429);
      await h.admin("PATCH", `/v1/customers/${c.id}`, { mail: { monthly_limit: 10_000 } });
      expect((await start()).status).toBe(200);
      await batches.drain();
      expect(await read()).toMatchObject({ status: "completed", recipients: { accepted: 700, pending: 0 } });
    } finally {
      batches.release();
    }
  });

  test("cancel while running: the batch in flight is recorded, the rest fails with `cancelled`", async () => {
    const batches = holdBatches(h);
    try {
      const { c, read, start, job } = await preparedJob("Cancelled mid-job", people(1100));
      await start();
      await h.deps.queue.idle();
      const [lane1, ...others] = batches.held.splice(0, batches.held.length);
      if (!lane1) throw new Error("no descriptor");
      c.simulator.setFaults({ mode: "slow", delayMs: 500, count: 1 });
      const inFlight = batches.run(lane1);
      await vi.waitFor(async () =>
        expect(
          (
            await h.db
              .select()
              .from(mailMessages)
              .where(and(eq(mailMessages.sendJobId, job.id), eq(mailMessages.status, "sending")))
          ).length,
        ).toBe(500),
      );
      const cancelled = await h.call<Mail["cancelSendJob"]>("POST", `/mail/v1/send-jobs/${job.id}/cancel`, { key: c.mailFull });
      expect(cancelled.json.data).toMatchObject({ status: "cancelled", recipients: { failed: 600, pending: 500 } });
      await inFlight;
      for (const descriptor of others) await batches.run(descriptor);
      const done = await read();
      expect(done).toMatchObject({ status: "cancelled", recipients: { accepted: 500, failed: 600, pending: 0 } });
      consistent(done);
    } finally {
      batches.release();
    }
  });
});
