import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { METADATA_MESSAGE_ID_KEY, simulatorTestAddress } from "../../lib/mail/provider/simulator";
import { createHarness, describeResponse, type Harness, type Mail } from "../helpers/harness";
import { startHttpsReceiver, verifyStripeStyle, type ReceivedRequest } from "../helpers/https-receiver";
import { readyMailCustomer } from "../helpers/mail";
import { addRecipients, createJob, createNewsletter, waitForJob } from "../helpers/send-jobs";

/**
 * A newsletter end to end, in embedded mode and over HTTP only: a newsletter through the Postmark simulator,
 * whose webhooks reach our receiver over loopback; readers act through the simulator's control endpoints;
 * the customer's own webhook receiver (loopback https, self-signed and trusted through the test-only
 * OUTBOUND_TRUSTED_CA, reachable through the test-only ALLOW_LOOPBACK_OUTBOUND) verifies what we send.
 */

let h: Harness;
let c: Awaited<ReturnType<typeof readyMailCustomer>>;
let receiver: Awaited<ReturnType<typeof startHttpsReceiver>>;

beforeAll(async () => {
  receiver = await startHttpsReceiver("portal.test");
  h = await createHarness({ postmarkWebhooks: true, env: { ALLOW_LOOPBACK_OUTBOUND: "true", OUTBOUND_TRUSTED_CA: receiver.ca } });
  c = await readyMailCustomer(h, "Newsletter Co");
});
afterAll(async () => {
  await h.close();
  await receiver.close();
});

/** The simulator's HTTP API (`/__sim/…`), as a developer drives it with curl. */
async function simulatorApi<T = unknown>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
  const r = await fetch(`${h.deps.providers.postmarkApiUrl}/__sim${path}`, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  expect(r.status, `simulator ${method} ${path}: HTTP ${r.status}: ${text}`).toBe(200);
  return JSON.parse(text) as T;
}

/** What the simulator received for a job: the To addresses, and the provider id of each of our messages. */
async function receivedFor(jobId: string) {
  const page = await simulatorApi<{ messages: { MessageID: string; To: string; Metadata: Record<string, string> }[] }>(
    "GET",
    `/messages?metadata_key=send_job_id&metadata_value=${jobId}`,
  );
  const messages = page.messages;
  return {
    to: messages.map((m) => m.To).sort(),
    providerId: (messageId: string) => messages.find((m) => m.Metadata[METADATA_MESSAGE_ID_KEY] === messageId)?.MessageID ?? "",
  };
}

/** Lets the simulator post every pending event and our queue run what they caused (webhook deliveries). */
async function settle(): Promise<void> {
  await h.deps.queue.idle();
  await c.simulator.whenIdle();
  await h.deps.queue.idle();
}

async function sendNewsletter(templateId: string, emails: string[]) {
  const job = await createJob(h, c.mailFull, { template_id: templateId, params: { campaign: "Autumn", first_name: "reader" } });
  const added = await addRecipients(
    h,
    c.mailFull,
    job.id,
    emails.map((email) => ({ email })),
  );
  const messageIds = new Map<string, string>(added.recipients.map((r: { email: string; message_id: string }) => [r.email, r.message_id]));
  const started = await h.call("POST", `/mail/v1/send-jobs/${job.id}/start`, { key: c.mailFull });
  expect(started.status, describeResponse(started)).toBe(200);
  await waitForJob(h, c.mailReporting, job.id, "completed");
  await settle();
  return { jobId: job.id as string, messageIds: (email: string) => messageIds.get(email) ?? "" };
}

const statusesOf = async (jobId: string) => {
  const r = await h.call<Mail["listSendJobMessages"]>("GET", `/mail/v1/send-jobs/${jobId}/messages?limit=100`, { key: c.mailReporting });
  expect(r.status, describeResponse(r)).toBe(200);
  return new Map<string, { status: string; bounce_type: string | null }>(
    r.json.data.map((m: { message_id: string; status: string; bounce_type: string | null }) => [m.message_id, m]),
  );
};

describe("a newsletter end to end", () => {
  test("a newsletter shows deliveries, bounces, complaints, opens and clicks; the unsubscribe and the bounce enter the feed and block the next send; the portal receives a verified job.completed", async () => {
    const registered = await h.call<Mail["createWebhook"]>("POST", "/mail/v1/webhooks", {
      key: c.mailFull,
      body: { url: `${receiver.origin}/hooks/mail`, events: ["job.completed"] },
    });
    expect(registered.status, describeResponse(registered)).toBe(201);
    const secret: string = registered.json.data.secret;
    expect(secret).toEqual(expect.any(String));
    const since = h.clock.now().toISOString();

    const reader = "ann@readers.example.com";
    const leaver = "bob@readers.example.com";
    const quiet = "cat@readers.example.com";
    const bouncer = simulatorTestAddress("HardBounce", "issue4");
    const complainer = simulatorTestAddress("SpamComplaint", "issue4");
    const everyone = [reader, leaver, quiet, bouncer, complainer];
    const templateId = await createNewsletter(h, c.mailFull, "Autumn newsletter");

    // First send: everyone gets it; the test addresses bounce and complain inside the simulator.
    const first = await sendNewsletter(templateId, everyone);
    const firstReceived = await receivedFor(first.jobId);
    expect(firstReceived.to).toEqual([...everyone].sort());

    // The reader opens and clicks the newsletter's link; another reader unsubscribes (Postmark's link).
    const readerMail = await simulatorApi<{ MessageID: string; HtmlBody: string }>("GET", `/messages/${firstReceived.providerId(first.messageIds(reader))}`);
    const link = "https://shop.example.com/spring";
    expect(readerMail.HtmlBody).toContain(`href="${link}"`);
    await simulatorApi("POST", `/messages/${readerMail.MessageID}/open`);
    await simulatorApi("POST", `/messages/${readerMail.MessageID}/click`, { url: link });
    await simulatorApi("POST", `/messages/${firstReceived.providerId(first.messageIds(leaver))}/unsubscribe`);
    await settle();

    const detail = await h.call<Mail["getSendJob"]>("GET", `/mail/v1/send-jobs/${first.jobId}`, { key: c.mailReporting });
    expect(detail.status, describeResponse(detail)).toBe(200);
    expect(detail.json.data.recipients, describeResponse(detail)).toMatchObject({ total: 5, accepted: 5, suppressed: 0, pending: 0 });
    // The complaint's mail was delivered first; the hard bounce never was.
    expect(detail.json.data.stats, describeResponse(detail)).toEqual({
      delivered: 4,
      bounces: 1,
      complaints: 1,
      opens: 1,
      unique_opens: 1,
      clicks: 1,
      unique_clicks: 1,
    });
    const timeline = detail.json.data.timeline as Record<string, number | string>[];
    const total = (key: string) => timeline.reduce((n, hour) => n + Number(hour[key]), 0);
    expect(
      ["accepted", "delivered", "bounces", "complaints", "opens", "clicks"].map((key) => [key, total(key)]),
      describeResponse(detail),
    ).toEqual([
      ["accepted", 5],
      ["delivered", 4],
      ["bounces", 1],
      ["complaints", 1],
      ["opens", 1],
      ["clicks", 1],
    ]);
    const links = await h.call<Mail["listSendJobLinks"]>("GET", `/mail/v1/send-jobs/${first.jobId}/links`, { key: c.mailReporting });
    expect(links.status, describeResponse(links)).toBe(200);
    expect(links.json.data).toEqual([{ url: link, clicks: 1, unique_clicks: 1 }]);
    const firstStatuses = await statusesOf(first.jobId);
    expect(everyone.map((email) => firstStatuses.get(first.messageIds(email)))).toEqual([
      expect.objectContaining({ status: "delivered" }),
      expect.objectContaining({ status: "delivered" }),
      expect.objectContaining({ status: "delivered" }),
      expect.objectContaining({ status: "bounced", bounce_type: "HardBounce" }),
      expect.objectContaining({ status: "complained" }),
    ]);

    // The suppression feed of the newsletter stream: the unsubscribe, the bounce and the complaint.
    const feed = await h.call<Mail["listSuppressionChanges"]>("GET", `/mail/v1/suppressions?since=${encodeURIComponent(since)}&stream=newsletter`, {
      key: c.mailReporting,
    });
    expect(feed.status, describeResponse(feed)).toBe(200);
    const entries = (feed.json.data as { email: string; changed_at: string }[]).toSorted((a, b) => a.email.localeCompare(b.email));
    expect(entries, describeResponse(feed)).toEqual([
      { email: leaver, stream: "newsletter", active: true, reason: "unsubscribe", reactivatable: true, changed_at: expect.any(String) },
      { email: bouncer, stream: "newsletter", active: true, reason: "hard_bounce", reactivatable: true, changed_at: expect.any(String) },
      { email: complainer, stream: "newsletter", active: true, reason: "spam_complaint", reactivatable: false, changed_at: expect.any(String) },
    ]);
    expect(entries.every((e) => e.changed_at >= since)).toBe(true);
    const transactional = await h.call<Mail["listSuppressionChanges"]>("GET", `/mail/v1/suppressions?since=${encodeURIComponent(since)}&stream=transactional`, {
      key: c.mailReporting,
    });
    expect(transactional.json.data, describeResponse(transactional)).toEqual([]);

    // Second send to the same addresses: the suppressed ones are never handed to the provider.
    const second = await sendNewsletter(templateId, everyone);
    const secondDetail = await h.call<Mail["getSendJob"]>("GET", `/mail/v1/send-jobs/${second.jobId}`, { key: c.mailReporting });
    expect(secondDetail.json.data.recipients, describeResponse(secondDetail)).toMatchObject({ total: 5, accepted: 2, suppressed: 3, pending: 0 });
    expect((await receivedFor(second.jobId)).to).toEqual([reader, quiet].sort());
    const secondStatuses = await statusesOf(second.jobId);
    expect(everyone.map((email) => secondStatuses.get(second.messageIds(email))?.status)).toEqual([
      "delivered",
      "suppressed",
      "delivered",
      "suppressed",
      "suppressed",
    ]);
    for (const email of [leaver, bouncer, complainer]) {
      expect((await simulatorApi<{ total_count: number }>("GET", `/messages?to=${encodeURIComponent(email)}`)).total_count, email).toBe(1);
    }

    // The portal's receiver got job.completed for both jobs (and nothing else: only that event is registered),
    // each verifying with the registration's secret.
    await vi.waitFor(() => expect(receiver.received).toHaveLength(2), { timeout: 60_000, interval: 50 });
    const header = (r: ReceivedRequest, name: string) => String(r.headers[name] ?? "");
    expect(receiver.received.map((r) => [r.method, r.path, header(r, "x-service-event")])).toEqual([
      ["POST", "/hooks/mail", "job.completed"],
      ["POST", "/hooks/mail", "job.completed"],
    ]);
    for (const delivery of receiver.received) {
      const now = Date.now() / 1000;
      const signature = header(delivery, "x-service-signature");
      expect(verifyStripeStyle(secret, delivery.body, signature, now).verified, signature).toBe(true);
      // The check can fail: another body, another secret or a time outside the tolerance do not verify.
      expect(verifyStripeStyle(secret, `${delivery.body} `, signature, now).verified).toBe(false);
      expect(verifyStripeStyle(`${secret}x`, delivery.body, signature, now).verified).toBe(false);
      expect(verifyStripeStyle(secret, delivery.body, signature, now + 301).verified).toBe(false);
      expect(JSON.parse(delivery.body).delivery_id).toBe(header(delivery, "x-service-delivery"));
    }
    const completedBody = (jobId: string) => receiver.received.map((r) => JSON.parse(r.body)).find((body) => body.send_job_id === jobId);
    expect(completedBody(first.jobId)).toEqual({
      event: "job.completed",
      delivery_id: expect.any(String),
      send_job_id: first.jobId,
      recipients: { total: 5, accepted: 5, suppressed: 0 },
      occurred_at: expect.any(String),
    });
    expect(completedBody(second.jobId)).toEqual({
      event: "job.completed",
      delivery_id: expect.any(String),
      send_job_id: second.jobId,
      recipients: { total: 5, accepted: 2, suppressed: 3 },
      occurred_at: expect.any(String),
    });
  });
});
