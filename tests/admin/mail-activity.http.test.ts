import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createHarness, describeResponse, type Admin, type ErrorEnvelope, type Harness } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";
import { postEvent, postmarkEvent, sendTransactional } from "../helpers/postmark-events";
import { addRecipients, createJob, createNewsletter, transientRows, waitForJob } from "../helpers/send-jobs";

/**
 * The operator's message search and suppression list, over HTTP against the real
 * send path and the Postmark simulator.
 */
let h: Harness;
let c: Awaited<ReturnType<typeof readyMailCustomer>>;
let other: Awaited<ReturnType<typeof readyMailCustomer>>;

beforeAll(async () => {
  h = await createHarness();
  c = await readyMailCustomer(h, "Activity Co");
  other = await readyMailCustomer(h, "Other Co");
});
afterAll(async () => {
  await h.close();
});

const messages = (customerId: string, query = "") => h.admin<Admin["listCustomerMessages"]>("GET", `/v1/customers/${customerId}/mail/messages${query}`);

describe("message search", () => {
  test("finds a recipient's mail by address in any form, newest first; filters combine; another customer's never appear", async () => {
    const first = await sendTransactional(h, c, "anna.search@example.com");
    h.clock.advance(1000);
    const second = await sendTransactional(h, c, "Anna <Anna.Search@Example.com>");
    await sendTransactional(h, c, "bob.search@example.com");
    const foreign = await sendTransactional(h, other, "anna.search@example.com");

    const r = await messages(c.id, `?recipient=${encodeURIComponent("ANNA.search@example.com")}`);
    expect(r.status, describeResponse(r)).toBe(200);
    expect(r.json.data.map((m) => m.id)).toEqual([second, first]);
    expect(r.json.data[0]).toMatchObject({ kind: "transactional", status: "accepted", provider_message_id: expect.any(String) });
    expect(r.text).not.toMatch(/anna\.search/i);
    expect(r.json.data.map((m) => m.id)).not.toContain(foreign);

    expect((await messages(c.id, "?recipient=anna.search%40example.com&kind=newsletter")).json.data).toEqual([]);
    expect((await messages(c.id, "?recipient=anna.search%40example.com&status=bounced")).json.data).toEqual([]);
    expect((await messages(c.id, "?recipient=nobody%40example.com")).json.data).toEqual([]);
    const future = new Date(h.clock.now().getTime() + 3600_000).toISOString();
    expect((await messages(c.id, `?recipient=anna.search%40example.com&since=${encodeURIComponent(future)}`)).json.data).toEqual([]);
    expect((await messages(c.id, `?recipient=anna.search%40example.com&until=${encodeURIComponent(future)}`)).json.data).toHaveLength(2);
  });

  test("pages with an opaque cursor through every message exactly once", async () => {
    const d = await readyMailCustomer(h, "Paging Co");
    const sent = [];
    for (let i = 0; i < 5; i++) sent.push(await sendTransactional(h, d, `pager${i}@example.com`));
    const seen: string[] = [];
    let after: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const r: Awaited<ReturnType<typeof messages>> = await messages(d.id, `?limit=2${after ? `&after=${after}` : ""}`);
      expect(r.status, describeResponse(r)).toBe(200);
      seen.push(...r.json.data.map((m) => m.id));
      after = r.json.paging.after;
      if (!r.json.paging.has_next) break;
    }
    // Newest first; the harness clock stands still, so equal times fall back to the id, descending.
    const all = await messages(d.id, "?limit=100");
    expect(seen).toEqual(all.json.data.map((m) => m.id));
    expect([...seen].sort()).toEqual([...sent].sort());
    expect((await messages(d.id, "?after=not-a-cursor")).status).toBe(400);
  });

  test("a send job's message is found by address after the job deleted its addresses", async () => {
    const templateId = await createNewsletter(h, c.mailFull, "Retention news");
    const job = await createJob(h, c.mailFull, { template_id: templateId });
    await addRecipients(h, c.mailFull, job.id, [
      { email: "Rita Retained <rita.retained@example.com>", data: { first_name: "Rita" } },
      { email: "sam@example.com" },
    ]);
    expect((await h.call("POST", `/mail/v1/send-jobs/${job.id}/start`, { key: c.mailFull })).status).toBe(200);
    await waitForJob(h, c.mailReporting, job.id, "completed");
    expect(await transientRows(h, job.id)).toBe(0);

    const r = await messages(c.id, `?recipient=${encodeURIComponent("RITA.RETAINED@example.com")}&send_job_id=${job.id}&kind=newsletter`);
    expect(r.status, describeResponse(r)).toBe(200);
    expect(r.json.data).toHaveLength(1);
    expect(r.json.data[0]).toMatchObject({ send_job_id: job.id, kind: "newsletter", status: "accepted" });
  });

  test("one message with provider ids and its timeline; another customer's message or customer is 404", async () => {
    const id = await sendTransactional(h, c, "timeline@example.com");
    const delivered = await postEvent(h, postmarkEvent.delivery({ message_id: id }, new Date(Date.now() + 1000).toISOString()));
    expect(delivered.status, describeResponse(delivered)).toBe(200);

    const r = await h.admin<Admin["getCustomerMessage"]>("GET", `/v1/customers/${c.id}/mail/messages/${id}`);
    expect(r.status, describeResponse(r)).toBe(200);
    expect(r.json.data).toMatchObject({ id, status: "delivered", provider_message_id: expect.any(String), accepted_at: expect.any(String) });
    expect(r.json.data.timeline.map((e: { type: string }) => e.type)).toEqual(["created", "accepted", "delivered"]);
    expect(r.text).not.toContain("timeline@example.com");

    expect((await h.admin("GET", `/v1/customers/${other.id}/mail/messages/${id}`)).status).toBe(404);
    expect((await h.admin("GET", `/v1/customers/${crypto.randomUUID()}/mail/messages/${id}`)).status).toBe(404);
    expect((await messages(crypto.randomUUID())).status).toBe(404);
    expect((await h.admin("GET", `/v1/customers/${c.id}/mail/messages/not-a-uuid`)).status).toBe(422);
  });

  test("bad filters answer 422 naming the field; no token 401", async () => {
    for (const [query, field] of [
      ["?status=sending", "status"],
      ["?kind=promo", "kind"],
      ["?send_job_id=42", "send_job_id"],
      ["?since=yesterday", "since"],
      ["?limit=0", "limit"],
      ["?limit=101", "limit"],
    ] as const) {
      const r = await messages(c.id, query);
      expect(r.status, `${query}: ${describeResponse(r)}`).toBe(422);
      expect(r.text).toContain(`"path":"${field}`);
    }
    const inverted = await messages(c.id, "?since=2026-03-02T00:00:00Z&until=2026-03-01T00:00:00Z");
    expect(inverted.status, describeResponse(inverted)).toBe(422);
    expect((await h.call("GET", `/admin/v1/customers/${c.id}/mail/messages`)).status).toBe(401);
  });
});

describe("suppressions", () => {
  async function suppress(customerId: string, email: string, reason: "HardBounce" | "SpamComplaint" | "ManualSuppression", at: string) {
    const r = await postEvent(h, postmarkEvent.subscriptionChange({ at, suppress: true, reason, recipient: email, stream: "broadcast", messageId: null }), {
      customerId,
    });
    expect(r.status, describeResponse(r)).toBe(200);
  }

  test("lists one stream newest first with filters and a cursor; CSV by Accept or format; another customer's id is 404", async () => {
    const d = await readyMailCustomer(h, "Suppressions Co");
    await suppress(d.id, "unsub@example.com", "ManualSuppression", "2026-03-01T10:00:00Z");
    await suppress(d.id, "bounce@example.com", "HardBounce", "2026-03-01T10:01:00Z");
    await suppress(d.id, "=cmd@example.com", "SpamComplaint", "2026-03-01T10:02:00Z");
    await suppress(other.id, "elsewhere@example.com", "HardBounce", "2026-03-01T10:03:00Z");

    const list = await h.admin<Admin["listCustomerSuppressions"]>("GET", `/v1/customers/${d.id}/mail/suppressions`);
    expect(list.status, describeResponse(list)).toBe(200);
    expect(list.json.data.map((e) => [e.email, e.reason, e.reactivatable])).toEqual([
      ["=cmd@example.com", "spam_complaint", false],
      ["bounce@example.com", "hard_bounce", true],
      ["unsub@example.com", "unsubscribe", true],
    ]);
    const byReason = await h.admin<Admin["listCustomerSuppressions"]>("GET", `/v1/customers/${d.id}/mail/suppressions?reason=hard_bounce&active=true`);
    expect(byReason.json.data.map((e) => e.email)).toEqual(["bounce@example.com"]);
    expect((await h.admin<Admin["listCustomerSuppressions"]>("GET", `/v1/customers/${d.id}/mail/suppressions?stream=transactional`)).json.data).toEqual([]);
    expect((await h.admin<Admin["listCustomerSuppressions"]>("GET", `/v1/customers/${d.id}/mail/suppressions?active=false`)).json.data).toEqual([]);

    const page1 = await h.admin<Admin["listCustomerSuppressions"]>("GET", `/v1/customers/${d.id}/mail/suppressions?limit=2`);
    expect(page1.json.paging.has_next).toBe(true);
    const page2 = await h.admin<Admin["listCustomerSuppressions"]>("GET", `/v1/customers/${d.id}/mail/suppressions?limit=2&after=${page1.json.paging.after}`);
    expect([...page1.json.data, ...page2.json.data].map((e) => e.email)).toEqual(list.json.data.map((e) => e.email));
    expect(page2.json.paging).toEqual({ after: null, has_next: false });

    const csv = await h.call("GET", `/admin/v1/customers/${d.id}/mail/suppressions`, {
      key: null,
      headers: { authorization: `Bearer ${h.deps.adminToken}`, accept: "text/csv" },
    });
    expect(csv.status, describeResponse(csv)).toBe(200);
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(csv.headers.get("content-disposition")).toMatch(/attachment; filename="suppressions-newsletter-/);
    expect(csv.text.split("\r\n")).toEqual([
      "email,stream,active,reason,reactivatable,changed_at",
      expect.stringMatching(/^'=cmd@example\.com,newsletter,true,spam_complaint,false,2026-/),
      expect.stringMatching(/^bounce@example\.com,newsletter,true,hard_bounce,true,/),
      expect.stringMatching(/^unsub@example\.com,newsletter,true,unsubscribe,true,/),
      "",
    ]);
    const byFormat = await h.admin("GET", `/v1/customers/${d.id}/mail/suppressions?format=csv&reason=unsubscribe`);
    expect(byFormat.text.split("\r\n").filter(Boolean)).toHaveLength(2);

    expect((await h.admin("GET", `/v1/customers/${crypto.randomUUID()}/mail/suppressions`)).status).toBe(404);
    const bad = await h.admin("GET", `/v1/customers/${d.id}/mail/suppressions?reason=bored`);
    expect(bad.status, describeResponse(bad)).toBe(422);
  });

  test("reactivation lifts an unsubscribe; a spam complaint is refused with 409 spam_complaint; another customer's id is 404", async () => {
    const d = await readyMailCustomer(h, "Reactivation Co");
    await suppress(d.id, "again@example.com", "ManualSuppression", "2026-03-01T10:00:00Z");
    await suppress(d.id, "angry@example.com", "SpamComplaint", "2026-03-01T10:01:00Z");
    const path = `/v1/customers/${d.id}/mail/suppressions/reactivate`;

    const spam = await h.admin<ErrorEnvelope>("POST", path, { email: "angry@example.com", stream: "newsletter" });
    expect(spam.status, describeResponse(spam)).toBe(409);
    expect(spam.json.error.details).toEqual({ reason: "spam_complaint" });

    const lifted = await h.admin<Admin["reactivateCustomerSuppression"]>("POST", path, { email: "again@example.com", stream: "newsletter" });
    expect(lifted.status, describeResponse(lifted)).toBe(200);
    expect(lifted.json.data).toEqual({ email: "again@example.com", stream: "newsletter", reactivated: true });
    const inactive = await h.admin<Admin["listCustomerSuppressions"]>("GET", `/v1/customers/${d.id}/mail/suppressions?active=false`);
    expect(inactive.json.data.map((e) => [e.email, e.active])).toEqual([["again@example.com", false]]);

    expect((await h.admin("POST", `/v1/customers/${other.id}/mail/suppressions/reactivate`, { email: "angry@example.com" })).status).toBe(200);
    expect((await h.admin("POST", `/v1/customers/${crypto.randomUUID()}/mail/suppressions/reactivate`, { email: "again@example.com" })).status).toBe(404);
    expect((await h.admin("POST", path, {})).status).toBe(400);
  });
});
