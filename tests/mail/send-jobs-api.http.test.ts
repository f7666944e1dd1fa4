import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ManualClock } from "../../lib/base/clock";
import { mailMessages, mailSendJobAddressSets, mailTemplates } from "../../lib/db/schema";
import { recipientHash } from "../../lib/mail/sending/address";
import { addressKey, addressSetOf, encodeAddressSet } from "../../lib/mail/send-jobs/address-set";
import { timeOrderedUuid } from "../../lib/mail/send-jobs/ids";
import { recoverSendJobs } from "../../lib/mail/send-jobs/recovery";
import { DEMO_TRANSACTIONAL_TEMPLATE } from "../../lib/mail/seed";
import { createHarness, describeResponse, type Harness, type ErrorEnvelope, type Mail, type ErrorDetail, type MissingDetails } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";
import { addRecipients, createJob, createNewsletter, people, transientRows, waitForJob } from "../helpers/send-jobs";

let h: Harness;
let c: Awaited<ReturnType<typeof readyMailCustomer>>;
let templateId: string;
const clock = new ManualClock(new Date());

beforeAll(async () => {
  h = await createHarness({ clock });
  c = await readyMailCustomer(h, "Jobs API Co");
  templateId = await createNewsletter(h, c.mailFull);
});
afterAll(async () => h.close());

const post = <T>(path: string, key: string | null, body?: unknown, headers?: Record<string, string>) =>
  h.call<T>("POST", `/mail/v1${path}`, { key, body, headers });
const start = <T = Mail["startSendJob"]>(id: string, key = c.mailFull) => post<T>(`/send-jobs/${id}/start`, key);
const getJob = async (id: string, key = c.mailReporting) => (await h.call<Mail["getSendJob"]>("GET", `/mail/v1/send-jobs/${id}`, { key })).json.data;

async function transactionalTemplate(customerId: string): Promise<string> {
  const [row] = await h.db
    .select()
    .from(mailTemplates)
    .where(and(eq(mailTemplates.customerId, customerId), eq(mailTemplates.name, DEMO_TRANSACTIONAL_TEMPLATE)));
  return row?.id ?? "";
}

describe("POST /v1/send-jobs", () => {
  test("a sender exception may change only the part before @ on a verified domain; reply_to and known params are kept", async () => {
    const job = await createJob(h, c.mailFull, {
      template_id: templateId,
      from: { email: "spring@demo.example.com" },
      reply_to: "service@demo.example.com",
      params: { campaign: "A" },
    });
    expect(job).toMatchObject({
      from: { email: "spring@demo.example.com", name: "Demo GmbH" },
      reply_to: "service@demo.example.com",
      params: { campaign: "A" },
    });
    const named = await createJob(h, c.mailFull, {
      template_id: templateId,
      from: { email: "sale@DEMO.example.com", name: "Spring Sale" },
      reply_to: "",
      scheduled_at: "",
    });
    expect(named).toMatchObject({ from: { email: "sale@DEMO.example.com", name: "Spring Sale" }, reply_to: null, scheduled_at: null });
  });

  test.each([
    ["a sender on another domain", { from: { email: "news@other.example.org" } }, "from.email"],
    ["an unparsable sender", { from: { email: "not an address" } }, "from.email"],
    ["a sender with a display name in the address", { from: { email: "Shop <news@demo.example.com>" } }, "from.email"],
    ["an unparsable reply_to", { reply_to: "nobody" }, "reply_to"],
    ["an unknown parameter", { params: { coupon: "X" } }, "params.coupon"],
    ["a malformed scheduled_at", { scheduled_at: "tomorrow" }, "scheduled_at"],
    ["a template_id that is not a UUID", { template_id: "nope" }, "template_id"],
  ])("%s → 422", async (_label, patch, path) => {
    const r = await post<ErrorEnvelope<ErrorDetail[]>>("/send-jobs", c.mailFull, { template_id: templateId, ...patch });
    expect(r.status, describeResponse(r)).toBe(422);
    expect(r.json.error.code).toBe("validation_error");
    expect(r.json.error.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  test("a transactional or archived template → 422; another account's or an unknown template → 404; no template_id → 400", async () => {
    const transactional = await post<ErrorEnvelope<ErrorDetail[]>>("/send-jobs", c.mailFull, { template_id: await transactionalTemplate(c.id) });
    expect(transactional.status, describeResponse(transactional)).toBe(422);
    expect(transactional.json.error.details[0].path).toBe("template_id");
    const archived = await createNewsletter(h, c.mailFull, "Old news");
    expect((await h.call("PUT", `/mail/v1/templates/${archived}`, { key: c.mailFull, body: { status: "archived" } })).status).toBe(200);
    expect((await post("/send-jobs", c.mailFull, { template_id: archived })).status).toBe(422);
    const other = await readyMailCustomer(h, "Other jobs");
    expect((await post("/send-jobs", other.mailFull, { template_id: templateId })).status).toBe(404);
    expect((await post("/send-jobs", c.mailFull, { template_id: crypto.randomUUID() })).status).toBe(404);
    expect((await post("/send-jobs", c.mailFull, {})).status).toBe(400);
  });

  test("security: no key 401, a reporting key 403; Idempotency-Key creates once", async () => {
    expect((await post("/send-jobs", null, { template_id: templateId })).status).toBe(401);
    const reporting = await post("/send-jobs", c.mailReporting, { template_id: templateId });
    expect(reporting.status, describeResponse(reporting)).toBe(403);
    const first = await post<Mail["createSendJob"]>("/send-jobs", c.mailFull, { template_id: templateId }, { "idempotency-key": "job-create-1" });
    const again = await post<Mail["createSendJob"]>("/send-jobs", c.mailFull, { template_id: templateId }, { "idempotency-key": "job-create-1" });
    expect(again.status, describeResponse(again)).toBe(201);
    expect(again.json.data.id).toBe(first.json.data.id);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
  });
});

describe("POST /v1/send-jobs/{id}/recipients", () => {
  test("more than 5,000 or none → 422; another account's job → 404; a reporting key → 403", async () => {
    const job = await createJob(h, c.mailFull, { template_id: templateId });
    const tooMany = await post(`/send-jobs/${job.id}/recipients`, c.mailFull, { recipients: people(5001) });
    expect(tooMany.status, describeResponse(tooMany)).toBe(422);
    expect((await post(`/send-jobs/${job.id}/recipients`, c.mailFull, { recipients: [] })).status).toBe(422);
    expect((await post(`/send-jobs/${job.id}/recipients`, c.mailFull, {})).status).toBe(400);
    const other = await readyMailCustomer(h, "Foreign adder");
    expect((await post(`/send-jobs/${job.id}/recipients`, other.mailFull, { recipients: people(1) })).status).toBe(404);
    expect((await post(`/send-jobs/${job.id}/recipients`, c.mailReporting, { recipients: people(1) })).status).toBe(403);
    expect((await getJob(job.id)).recipients.total).toBe(0);
  });

  test("5,000 at once; the same chunk again under its Idempotency-Key adds nothing; the same addresses without a key are duplicates", async () => {
    const job = await createJob(h, c.mailFull, { template_id: templateId });
    const chunk = people(5000);
    const first = await addRecipients(h, c.mailFull, job.id, chunk, { "idempotency-key": `${job.id}:0` });
    expect(first.counts).toEqual({ received: 5000, added: 5000, duplicates: 0, invalid: 0 });
    const replay = await post<Mail["addSendJobRecipients"]>(
      `/send-jobs/${job.id}/recipients`,
      c.mailFull,
      { recipients: chunk },
      { "idempotency-key": `${job.id}:0` },
    );
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.json.data.recipients).toEqual(first.recipients);
    const again = await addRecipients(h, c.mailFull, job.id, [...chunk.slice(0, 10), ...people(5, "example.net")]);
    expect(again.counts).toEqual({ received: 15, added: 5, duplicates: 10, invalid: 0 });
    expect(again.recipients.slice(0, 10)).toEqual(first.recipients.slice(0, 10));
    expect(again.job).toMatchObject({ total: 5005, pending: 5005 });
  });

  test("duplicates are found across instances and refused calls: another instance's add and a call refused by its quota both count", async () => {
    const q = await readyMailCustomer(h, "Set Co");
    const tpl = await createNewsletter(h, q.mailFull);
    await h.admin("PATCH", `/v1/customers/${q.id}`, { mail: { max_per_job: 12 } });
    const job = await createJob(h, q.mailFull, { template_id: tpl });
    expect((await addRecipients(h, q.mailFull, job.id, people(10))).counts.added).toBe(10);

    // Another instance of the service adds one recipient: the stored set grows behind this process's back.
    const elsewhere = "elsewhere@example.org";
    const elsewhereId = timeOrderedUuid();
    const segment = addressSetOf([{ key: addressKey(recipientHash(elsewhere)), messageId: elsewhereId }]);
    await h.db.insert(mailSendJobAddressSets).values({ sendJobId: job.id, seq: 1, entries: encodeAddressSet(segment), count: segment.count });
    const seen = await addRecipients(h, q.mailFull, job.id, [{ email: elsewhere }, ...people(1)]);
    expect(seen.counts).toEqual({ received: 2, added: 0, duplicates: 2, invalid: 0 });
    expect(seen.recipients[0].message_id).toBe(elsewhereId);

    // Refused (past max_per_job): nothing of it is remembered, so the same addresses are new afterwards.
    const refused = await post(`/send-jobs/${job.id}/recipients`, q.mailFull, { recipients: people(3, "example.net") });
    expect(refused.status, describeResponse(refused)).toBe(429);
    const later = await addRecipients(h, q.mailFull, job.id, people(1, "example.net"));
    expect(later.counts).toEqual({ received: 1, added: 1, duplicates: 0, invalid: 0 });
  });

  test("after start (or cancel) → 409", async () => {
    const job = await createJob(h, c.mailFull, { template_id: templateId, scheduled_at: new Date(clock.now().getTime() + 3_600_000).toISOString() });
    await addRecipients(h, c.mailFull, job.id, people(2));
    expect(h.mailDeps.caches.addressSets.has(job.id)).toBe(true);
    expect((await start(job.id)).status).toBe(200);
    // A started job takes no adds: its duplicate set is not kept through the send.
    expect(h.mailDeps.caches.addressSets.has(job.id)).toBe(false);
    const late = await post<ErrorEnvelope>(`/send-jobs/${job.id}/recipients`, c.mailFull, { recipients: people(1, "example.org") });
    expect(late.status, describeResponse(late)).toBe(409);
    expect(late.json.error.details).toContainEqual({ path: "reason", message: "job_not_draft" });
    expect((await post(`/send-jobs/${job.id}/cancel`, c.mailFull)).status).toBe(200);
    expect((await post(`/send-jobs/${job.id}/recipients`, c.mailFull, { recipients: people(1, "example.org") })).status).toBe(409);
  });

  test("quotas: past max_per_job or the monthly limit (pending of all open live jobs counted) → 429 quota_exceeded and nothing added; sandbox jobs count against max_per_job only", async () => {
    const q = await readyMailCustomer(h, "Quota jobs");
    const tpl = await createNewsletter(h, q.mailFull);
    await h.admin("PATCH", `/v1/customers/${q.id}`, { mail: { max_per_job: 3, monthly_limit: 5 } });
    const job = await createJob(h, q.mailFull, { template_id: tpl });
    const over = await post<ErrorEnvelope>(`/send-jobs/${job.id}/recipients`, q.mailFull, { recipients: [...people(4), { email: "broken" }] });
    expect(over.status, describeResponse(over)).toBe(429);
    expect(over.json.error).toMatchObject({
      code: "quota_exceeded",
      details: [{ path: "recipients", message: expect.stringContaining("at most 3 recipients") }],
    });
    expect((await getJob(job.id, q.mailReporting)).recipients.total).toBe(0);
    // Invalid addresses are not sent, so they do not count against the maximum.
    expect((await addRecipients(h, q.mailFull, job.id, [...people(3), { email: "broken" }])).job).toMatchObject({ total: 4, pending: 3, invalid: 1 });

    const second = await createJob(h, q.mailFull, { template_id: tpl });
    await addRecipients(h, q.mailFull, second.id, people(2, "example.net"));
    const monthly = await post<ErrorEnvelope>(`/send-jobs/${second.id}/recipients`, q.mailFull, { recipients: people(1, "example.org") });
    expect(monthly.status, describeResponse(monthly)).toBe(429);
    // Not a field problem: `details` stays the spec's (empty) array; the figures are in the message.
    expect(monthly.json.error.details).toEqual([]);
    expect(monthly.json.error.message).toContain("limit of 5 e-mails would be passed: 0 sent this month and 6 pending");

    await h.admin("PATCH", `/v1/customers/${q.id}`, { mail: { mode: "sandbox" } });
    const sandbox = await createJob(h, q.mailFull, { template_id: tpl });
    expect(sandbox.mode).toBe("sandbox");
    expect((await addRecipients(h, q.mailFull, sandbox.id, people(3, "example.org"))).job.pending).toBe(3);
  });
});

describe("POST /v1/send-jobs/{id}/start and cancel", () => {
  test("start without recipients → 409; blocked sending → 403 (cancel still works); provider setup incomplete → 403 with details.missing", async () => {
    const empty = await createJob(h, c.mailFull, { template_id: templateId });
    const none = await start<ErrorEnvelope>(empty.id);
    expect(none.status, describeResponse(none)).toBe(409);
    expect(none.json.error.details).toContainEqual({ path: "reason", message: "no_recipients" });

    const b = await readyMailCustomer(h, "Blocked jobs");
    const job = await createJob(h, b.mailFull, { template_id: await createNewsletter(h, b.mailFull) });
    await addRecipients(h, b.mailFull, job.id, people(1));
    await h.admin("PATCH", `/v1/customers/${b.id}`, { mail: { sending_blocked: true } });
    const blocked = await start(job.id, b.mailFull);
    expect(blocked.status, describeResponse(blocked)).toBe(403);
    expect((await getJob(job.id, b.mailReporting)).status).toBe("draft");
    const cancelled = await post(`/send-jobs/${job.id}/cancel`, b.mailFull);
    expect(cancelled.status, describeResponse(cancelled)).toBe(200);

    const u = await readyMailCustomer(h, "Unready jobs");
    const unreadyJob = await createJob(h, u.mailFull, { template_id: await createNewsletter(h, u.mailFull) });
    await addRecipients(h, u.mailFull, unreadyJob.id, people(1));
    await h.db.execute(`update mail_provider_configs set broadcast_stream = null where customer_id = '${u.id}'`);
    const unready = await start<ErrorEnvelope<MissingDetails>>(unreadyJob.id, u.mailFull);
    expect(unready.status, describeResponse(unready)).toBe(403);
    expect(unready.json.error.details.missing).toEqual(["broadcast_stream"]);
    expect((await start(unreadyJob.id, u.mailReporting)).status).toBe(403);
  });

  test("the monthly limit is checked again at start → 429; a deleted template → 422; both leave the draft as it was", async () => {
    const q = await readyMailCustomer(h, "Start quota");
    const tpl = await createNewsletter(h, q.mailFull);
    const job = await createJob(h, q.mailFull, { template_id: tpl });
    await addRecipients(h, q.mailFull, job.id, people(3));
    await h.admin("PATCH", `/v1/customers/${q.id}`, { mail: { monthly_limit: 2 } });
    const over = await start<ErrorEnvelope>(job.id, q.mailFull);
    expect(over.status, describeResponse(over)).toBe(429);
    expect(over.json.error.code).toBe("quota_exceeded");
    await h.admin("PATCH", `/v1/customers/${q.id}`, { mail: { monthly_limit: 100 } });
    expect((await h.call("DELETE", `/mail/v1/templates/${tpl}`, { key: q.mailFull })).status).toBe(200);
    const gone = await start<ErrorEnvelope<ErrorDetail[]>>(job.id, q.mailFull);
    expect(gone.status, describeResponse(gone)).toBe(422);
    expect(gone.json.error.details[0].path).toBe("template_id");
    expect((await getJob(job.id, q.mailReporting)).status).toBe("draft");
  });

  test("running → start 409; completed → start and cancel 409; the template of a scheduled job cannot be deleted (409)", async () => {
    const job = await createJob(h, c.mailFull, { template_id: templateId });
    await addRecipients(h, c.mailFull, job.id, people(2));
    expect((await start(job.id)).json.data.status).toBe("running");
    const twice = await start<ErrorEnvelope>(job.id);
    expect(twice.status, describeResponse(twice)).toBe(409);
    expect(twice.json.error.details).toContainEqual({ path: "reason", message: "already_running" });
    await waitForJob(h, c.mailReporting, job.id, "completed");
    expect((await start<ErrorEnvelope>(job.id)).json.error.details).toContainEqual({ path: "reason", message: "job_finished" });
    const cancel = await post(`/send-jobs/${job.id}/cancel`, c.mailFull);
    expect(cancel.status, describeResponse(cancel)).toBe(409);

    const tpl = await createNewsletter(h, c.mailFull, "Scheduled template");
    const scheduled = await createJob(h, c.mailFull, { template_id: tpl, scheduled_at: new Date(clock.now().getTime() + 86_400_000).toISOString() });
    await addRecipients(h, c.mailFull, scheduled.id, people(1));
    expect((await start(scheduled.id)).json.data.status).toBe("scheduled");
    const del = await h.call<ErrorEnvelope>("DELETE", `/mail/v1/templates/${tpl}`, { key: c.mailFull });
    expect(del.status, describeResponse(del)).toBe(409);
    expect(del.json.error.details).toContainEqual({ path: "reason", message: "template_in_use" });
    expect((await post(`/send-jobs/${scheduled.id}/cancel`, c.mailFull)).status).toBe(200);
    expect((await h.call("DELETE", `/mail/v1/templates/${tpl}`, { key: c.mailFull })).status).toBe(200);
  });

  test("scheduled: start answers `scheduled` (again → 409); at scheduled_at the job runs (queue message or sweep) with what was rendered at start", async () => {
    const s = await readyMailCustomer(h, "Scheduler");
    const tpl = await createNewsletter(h, s.mailFull);
    const at = new Date(clock.now().getTime() + 3_600_000);
    const job = await createJob(h, s.mailFull, { template_id: tpl, scheduled_at: at.toISOString() });
    await addRecipients(h, s.mailFull, job.id, people(3));
    const started = await start(job.id, s.mailFull);
    expect(started.json.data).toMatchObject({ status: "scheduled", scheduled_at: at.toISOString(), started_at: null });
    const again = await start<ErrorEnvelope>(job.id, s.mailFull);
    expect(again.status).toBe(409);
    expect(again.json.error.details).toContainEqual({ path: "reason", message: "already_scheduled" });

    expect(await recoverSendJobs(h.mailDeps, { stalledForMs: 0, inFlightForMs: 120_000, customerId: s.id })).toMatchObject({ started: 0 });
    clock.set(at);
    expect(await recoverSendJobs(h.mailDeps, { stalledForMs: 60_000, inFlightForMs: 120_000, customerId: s.id })).toMatchObject({ started: 1 });
    expect(await waitForJob(h, s.mailReporting, job.id, "completed")).toMatchObject({ recipients: { accepted: 3 } });

    // A past scheduled_at starts at once; a near one is started by the delayed queue message.
    const past = await createJob(h, s.mailFull, { template_id: tpl, scheduled_at: new Date(clock.now().getTime() - 1000).toISOString() });
    await addRecipients(h, s.mailFull, past.id, people(1));
    expect((await start(past.id, s.mailFull)).json.data.status).toBe("running");
    const soon = await createJob(h, s.mailFull, { template_id: tpl, scheduled_at: new Date(clock.now().getTime() + 1000).toISOString() });
    await addRecipients(h, s.mailFull, soon.id, people(1));
    expect((await start(soon.id, s.mailFull)).json.data.status).toBe("scheduled");
    clock.advance(1000);
    await waitForJob(h, s.mailReporting, soon.id, "completed");
  });

  test("cancel: unsent recipients end failed with error `cancelled`, addresses are deleted; cancel again → 409; another account → 404", async () => {
    const job = await createJob(h, c.mailFull, { template_id: templateId });
    await addRecipients(h, c.mailFull, job.id, [...people(3), { email: "broken" }]);
    const cancelled = await post<Mail["cancelSendJob"]>(`/send-jobs/${job.id}/cancel`, c.mailFull);
    expect(cancelled.status, describeResponse(cancelled)).toBe(200);
    expect(cancelled.json.data).toMatchObject({ status: "cancelled", recipients: { total: 4, failed: 3, invalid: 1, pending: 0 } });
    expect(cancelled.json.data.completed_at).not.toBeNull();
    const messages = await h.db.select().from(mailMessages).where(eq(mailMessages.sendJobId, job.id));
    expect(messages.filter((m) => m.status === "failed").every((m) => m.error === "cancelled")).toBe(true);
    expect(await transientRows(h, job.id)).toBe(0);
    const again = await post<ErrorEnvelope>(`/send-jobs/${job.id}/cancel`, c.mailFull);
    expect(again.status).toBe(409);
    expect(again.json.error.details).toContainEqual({ path: "reason", message: "job_finished" });
    const other = await readyMailCustomer(h, "Foreign canceller");
    expect((await post(`/send-jobs/${job.id}/cancel`, other.mailFull)).status).toBe(404);
    expect((await post(`/send-jobs/${job.id}/cancel`, c.mailReporting)).status).toBe(403);
  });
});
