import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ManualClock } from "../../lib/base/clock";
import { METADATA_MESSAGE_ID_KEY, simulatorTestAddress } from "../../lib/mail/provider/simulator";
import { createHarness, describeResponse, type Admin, type ErrorEnvelope, type ErrorDetail, type Harness } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";
import { makeOperator, type TestOperator } from "../helpers/operators";
import { sendTransactional } from "../helpers/postmark-events";
import { addRecipients, createJob, createNewsletter, waitForJob } from "../helpers/send-jobs";

/**
 * The operator's mail time series, over HTTP: messages go out through the real send path
 * (a transactional send and a send job) to the Postmark simulator, whose webhooks (deliveries, a bounce, a
 * complaint, opens and clicks its control endpoints cause) reach our receiver over loopback. The simulator
 * reads the harness clock, which stands still unless moved, so every event lands in a known UTC hour.
 */
let h: Harness;
let c: Awaited<ReturnType<typeof readyMailCustomer>>;
let other: Awaited<ReturnType<typeof readyMailCustomer>>;
let support: TestOperator;
let jobId: string;

type Stats = Admin["getCustomerMailStats"];
type Counts = Omit<Stats["data"]["buckets"][number], "start">;
const zero: Counts = { accepted: 0, delivered: 0, bounced: 0, complained: 0, opened: 0, clicked: 0 };

const stats = <T = Stats>(customerId: string, query: string, token?: string) =>
  token
    ? h.call<T>("GET", `/admin/v1/customers/${customerId}/mail/stats${query}`, { key: token })
    : h.admin<T>("GET", `/v1/customers/${customerId}/mail/stats${query}`);

/** Lets the simulator post every pending webhook and our queue run what they caused. */
async function settle(): Promise<void> {
  await h.deps.queue.idle();
  await c.simulator.whenIdle();
  await h.deps.queue.idle();
}

async function simulator(path: string, body?: unknown): Promise<void> {
  const r = await fetch(`${h.deps.providers.postmarkApiUrl}/__sim${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(r.status, `simulator ${path}: ${await r.text()}`).toBe(200);
}

async function providerId(messageId: string): Promise<string> {
  const r = await fetch(`${h.deps.providers.postmarkApiUrl}/__sim/messages?metadata_key=${METADATA_MESSAGE_ID_KEY}&metadata_value=${messageId}`);
  const page = (await r.json()) as { messages: { MessageID: string }[] };
  const found = page.messages[0]?.MessageID;
  if (!found) throw new Error(`the simulator has no message ${messageId}`);
  return found;
}

beforeAll(async () => {
  h = await createHarness({ postmarkWebhooks: true, sharedClock: true, clock: new ManualClock("2026-03-01T09:10:00.000Z") });
  c = await readyMailCustomer(h, "Stats Co");
  other = await readyMailCustomer(h, "Other Stats Co");
  support = await makeOperator(h, "support");

  // 09:10 UTC: five transactional mails; Postmark delivers four (one of them is then marked as spam), one bounces.
  await sendTransactional(h, c, "ann.stats@example.com");
  await sendTransactional(h, c, "bob.stats@example.com");
  await sendTransactional(h, c, "cat.stats@example.com");
  await sendTransactional(h, c, simulatorTestAddress("HardBounce", "stats"));
  await sendTransactional(h, c, simulatorTestAddress("SpamComplaint", "stats"));
  await sendTransactional(h, other, "foreign.stats@example.com");
  await settle();

  // 10:30: a newsletter job to two readers, both delivered.
  h.clock.set("2026-03-01T10:30:00.000Z");
  const templateId = await createNewsletter(h, c.mailFull, "Stats news");
  const job = await createJob(h, c.mailFull, { template_id: templateId });
  jobId = job.id;
  const added = await addRecipients(h, c.mailFull, job.id, [{ email: "dan.stats@example.com" }, { email: "eve.stats@example.com" }]);
  const started = await h.call("POST", `/mail/v1/send-jobs/${job.id}/start`, { key: c.mailFull });
  expect(started.status, describeResponse(started)).toBe(200);
  await waitForJob(h, c.mailReporting, job.id, "completed");
  await settle();

  // 11:20: Dan opens twice (one unique open) and clicks the newsletter's link.
  h.clock.set("2026-03-01T11:20:00.000Z");
  const dan = await providerId(added.recipients[0].message_id);
  await simulator(`/messages/${dan}/open`);
  await simulator(`/messages/${dan}/open`);
  await simulator(`/messages/${dan}/click`, { url: "https://shop.example.com/spring" });
  await settle();
}, 60_000);
afterAll(async () => {
  await h.close();
});

describe("GET /admin/v1/customers/{id}/mail/stats", () => {
  test("hourly buckets in UTC count sends, deliveries, bounces, complaints, unique opens and clicks; empty hours are zeros", async () => {
    const r = await stats(c.id, `?granularity=hour&from=2026-03-01T08:00:00Z&to=2026-03-01T13:00:00Z`);
    expect(r.status, describeResponse(r)).toBe(200);
    expect(r.json.data).toMatchObject({ granularity: "hour", from: "2026-03-01T08:00:00.000Z", to: "2026-03-01T13:00:00.000Z", send_job_id: null });
    expect(r.json.data.buckets, describeResponse(r)).toEqual([
      { start: "2026-03-01T08:00:00.000Z", ...zero },
      { start: "2026-03-01T09:00:00.000Z", ...zero, accepted: 5, delivered: 4, bounced: 1, complained: 1 },
      { start: "2026-03-01T10:00:00.000Z", ...zero, accepted: 2, delivered: 2 },
      { start: "2026-03-01T11:00:00.000Z", ...zero, opened: 1, clicked: 1 },
      { start: "2026-03-01T12:00:00.000Z", ...zero },
    ]);
    expect(r.json.data.totals).toEqual({ accepted: 7, delivered: 6, bounced: 1, complained: 1, opened: 1, clicked: 1 });
    expect(r.text).not.toMatch(/stats@example\.com/);
  });

  test("a range is whole buckets: `from` rounds down, `to` up; days in UTC; the defaults end with the running bucket", async () => {
    const rounded = await stats(c.id, `?granularity=hour&from=2026-03-01T09:59:59Z&to=2026-03-01T10:00:01Z`);
    expect(rounded.status, describeResponse(rounded)).toBe(200);
    expect(rounded.json.data.buckets.map((b) => b.start)).toEqual(["2026-03-01T09:00:00.000Z", "2026-03-01T10:00:00.000Z"]);

    // An offset names the same instant: 00:30 in Berlin (UTC+1) is the 23:00 UTC hour of the day before.
    const days = await stats(c.id, `?granularity=day&from=${encodeURIComponent("2026-03-01T00:30:00+01:00")}&to=2026-03-03T00:00:00Z`);
    expect(days.status, describeResponse(days)).toBe(200);
    expect(days.json.data.buckets).toEqual([
      { start: "2026-02-28T00:00:00.000Z", ...zero },
      { start: "2026-03-01T00:00:00.000Z", accepted: 7, delivered: 6, bounced: 1, complained: 1, opened: 1, clicked: 1 },
      { start: "2026-03-02T00:00:00.000Z", ...zero },
    ]);

    const recent = await stats(c.id, "");
    expect(recent.status, describeResponse(recent)).toBe(200);
    expect(recent.json.data.buckets).toHaveLength(24);
    expect(recent.json.data.to).toBe("2026-03-01T12:00:00.000Z");
    expect(recent.json.data.totals.accepted).toBe(7);
    const month = await stats(c.id, "?granularity=day");
    expect(month.json.data.buckets).toHaveLength(30);
    expect(month.json.data.to).toBe("2026-03-02T00:00:00.000Z");
  });

  test("one send job's series; another customer's job or customer answers 404", async () => {
    const r = await stats(c.id, `?granularity=hour&from=2026-03-01T09:00:00Z&to=2026-03-01T12:00:00Z&send_job_id=${jobId}`);
    expect(r.status, describeResponse(r)).toBe(200);
    expect(r.json.data.send_job_id).toBe(jobId);
    expect(r.json.data.buckets).toEqual([
      { start: "2026-03-01T09:00:00.000Z", ...zero },
      { start: "2026-03-01T10:00:00.000Z", ...zero, accepted: 2, delivered: 2 },
      { start: "2026-03-01T11:00:00.000Z", ...zero, opened: 1, clicked: 1 },
    ]);
    expect((await stats(other.id, `?send_job_id=${jobId}`)).status).toBe(404);
    expect((await stats(c.id, `?send_job_id=${crypto.randomUUID()}`)).status).toBe(404);
    const foreign = await stats(other.id, `?granularity=day&from=2026-03-01T00:00:00Z&to=2026-03-02T00:00:00Z`);
    expect(foreign.json.data.totals).toEqual({ ...zero, accepted: 1, delivered: 1 });
    expect((await stats(crypto.randomUUID(), "")).status).toBe(404);
  });

  test("a support operator may read; without a token 401", async () => {
    const r = await stats(c.id, `?granularity=day&from=2026-03-01T00:00:00Z&to=2026-03-02T00:00:00Z`, support.token);
    expect(r.status, describeResponse(r)).toBe(200);
    expect(r.json.data.totals.accepted).toBe(7);
    expect((await h.call("GET", `/admin/v1/customers/${c.id}/mail/stats`)).status).toBe(401);
  });

  test("a reversed, empty or too long range answers 400 with details; a malformed value 422 naming it", async () => {
    for (const query of [
      "?from=2026-03-02T00:00:00Z&to=2026-03-01T00:00:00Z",
      "?from=2026-03-01T00:00:00Z&to=2026-03-01T00:00:00Z",
      "?granularity=hour&from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z",
      "?granularity=day&from=2024-01-01T00:00:00Z&to=2026-03-01T00:00:00Z",
      "?from=2026-03-05T00:00:00Z",
    ]) {
      const r = await stats<ErrorEnvelope<ErrorDetail[]>>(c.id, query);
      expect(r.status, `${query}: ${describeResponse(r)}`).toBe(400);
      expect(r.json.error.code).toBe("bad_request");
      expect(r.json.error.details[0]?.path, describeResponse(r)).toBe("from");
    }
    // The longest ranges allowed: 31 days of hours, 366 days.
    expect((await stats(c.id, "?granularity=hour&from=2026-01-29T00:00:00Z&to=2026-03-01T00:00:00Z")).status).toBe(200);
    expect((await stats(c.id, "?granularity=day&from=2025-03-01T00:00:00Z&to=2026-03-02T00:00:00Z")).status).toBe(200);
    for (const [query, field] of [
      ["?granularity=week", "granularity"],
      ["?from=yesterday", "from"],
      ["?to=2026-03-01", "to"],
      ["?send_job_id=42", "send_job_id"],
    ] as const) {
      const r = await stats(c.id, query);
      expect(r.status, `${query}: ${describeResponse(r)}`).toBe(422);
      expect(r.text).toContain(`"path":"${field}"`);
    }
  });
});
