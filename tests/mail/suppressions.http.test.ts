import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { mailProviderConfigs } from "../../lib/db/schema";
import { createHarness, describeResponse, type Harness, type Mail, type ErrorEnvelope, type ErrorDetail, type CallResult } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";
import { newsletterThroughSimulator, postEvent, postmarkEvent, sendTransactional } from "../helpers/postmark-events";

let h: Harness;
let c: Awaited<ReturnType<typeof readyMailCustomer>>;

type Entry = { email: string; stream: string; active: boolean; reason: string; reactivatable: boolean; changed_at: string };

beforeAll(async () => {
  // The simulator posts its webhooks to this harness's receiver, as in `npm start`.
  h = await createHarness({ postmarkWebhooks: true });
  c = await readyMailCustomer(h, "Suppressions Co");
});
afterAll(async () => h.close());

const feed = <T>(customer: { mailReporting: string }, query: string) => h.call<T>("GET", `/mail/v1/suppressions?${query}`, { key: customer.mailReporting });
const lookup = <T = Mail["lookupSuppressions"]>(customer: { mailReporting: string }, body: unknown) =>
  h.call<T>("POST", "/mail/v1/suppressions/lookup", { key: customer.mailReporting, body });
const reactivate = <T = Mail["reactivateSuppression"]>(customer: { mailFull: string }, body: unknown) =>
  h.call<T>("POST", "/mail/v1/suppressions/reactivate", { key: customer.mailFull, body });
// Dated now: the mirror ignores a change older than one it has seen, and the simulator's events carry the real time.
const suppressionChange = (
  customerId: string,
  recipient: string,
  suppress: boolean,
  reason: "ManualSuppression" | "HardBounce" | "SpamComplaint" = "ManualSuppression",
  stream = "broadcast",
) =>
  postEvent(h, postmarkEvent.subscriptionChange({ at: new Date().toISOString(), suppress, reason, origin: "Recipient", messageId: null, recipient, stream }), {
    customerId,
  });
const since = "1970-01-01T00:00:00Z";
const dump = (streamId: string) =>
  c.simulator.dumpSuppressions([...c.simulator.servers.values()].find((s) => s.token === c.serverToken) ?? never(), streamId, {});
function never(): never {
  throw new Error("the customer's server is not registered in the simulator");
}

describe("walk-through: an unsubscribe in embedded mode shows up in the feed", () => {
  test("the reader unsubscribes from a newsletter; the simulator's SubscriptionChange reaches the mirror; reactivate lifts it at Postmark and in the feed", async () => {
    const to = "reader@example.com";
    const sent = await newsletterThroughSimulator(h, c, to);
    c.simulator.open(sent.providerMessageId);
    c.simulator.click(sent.providerMessageId, { url: "https://www.demo.example.com/spring" });
    c.simulator.unsubscribe(sent.providerMessageId);
    await c.simulator.whenIdle();

    const message = await h.call<Mail["getMessage"]>("GET", `/mail/v1/messages/${sent.messageId}`, { key: c.mailReporting });
    expect(message.json.data, describeResponse(message)).toMatchObject({ status: "delivered", send_job_id: expect.any(String) });
    expect(message.json.data.first_opened_at).not.toBeNull();
    expect(message.json.data.first_clicked_at).not.toBeNull();
    expect(message.json.data.events.map((e: { type: string }) => e.type)).toEqual(expect.arrayContaining(["delivered", "opened", "clicked", "unsubscribed"]));

    const first = await feed<Mail["listSuppressionChanges"]>(c, `since=${since}`);
    expect(first.status, describeResponse(first)).toBe(200);
    const entry = (first.json.data as Entry[]).find((e) => e.email === to);
    expect(entry).toMatchObject({ email: to, stream: "newsletter", active: true, reason: "unsubscribe", reactivatable: true });
    expect((await lookup(c, { emails: ["Reader@Example.com"] })).json.data[0]).toMatchObject({
      email: "Reader@Example.com",
      suppressed: true,
      reason: "unsubscribe",
    });
    // Suppressions apply per stream: transactional mail stays deliverable.
    expect((await lookup(c, { emails: [to], stream: "transactional" })).json.data[0]).toEqual({ email: to, suppressed: false });
    expect(dump("broadcast").body).toMatchObject({
      Suppressions: [expect.objectContaining({ EmailAddress: to, SuppressionReason: "ManualSuppression", Origin: "Recipient" })],
    });

    const lifted = await reactivate(c, { email: to });
    expect(lifted.status, describeResponse(lifted)).toBe(200);
    expect(lifted.json.data).toEqual({ email: to, stream: "newsletter", reactivated: true });
    expect(dump("broadcast").body).toEqual({ Suppressions: [] });
    await c.simulator.whenIdle();

    const next = await feed<Mail["listSuppressionChanges"]>(c, `since=${encodeURIComponent(entry?.changed_at ?? since)}`);
    const latest = (next.json.data as Entry[]).filter((e) => e.email === to);
    expect(latest, describeResponse(next)).toEqual([expect.objectContaining({ active: false, reason: "unsubscribe", reactivatable: false })]);
    expect(Date.parse(latest[0]?.changed_at ?? "")).toBeGreaterThan(Date.parse(entry?.changed_at ?? ""));
    expect((await lookup(c, { emails: [to] })).json.data[0]).toEqual({ email: to, suppressed: false });

    // Idempotent: lifting again changes nothing and adds no feed entry.
    const again = await reactivate(c, { email: to });
    expect(again.json.data, describeResponse(again)).toEqual({ email: to, stream: "newsletter", reactivated: true });
    expect((await feed<Mail["listSuppressionChanges"]>(c, `since=${encodeURIComponent(latest[0]?.changed_at ?? since)}`)).json.data).toEqual([
      expect.objectContaining({ email: to, active: false }),
    ]);
  });

  test("a hard bounce on the transactional stream is lifted on that stream only", async () => {
    const to = `hardbounce+reactivate@bounce-testing.postmarkapp.com`;
    const id = await sendTransactional(h, c, to);
    await c.simulator.whenIdle();
    expect((await h.call<Mail["getMessage"]>("GET", `/mail/v1/messages/${id}`, { key: c.mailReporting })).json.data).toMatchObject({
      status: "bounced",
      bounce_type: "HardBounce",
    });
    expect((await lookup(c, { emails: [to], stream: "transactional" })).json.data[0]).toMatchObject({
      suppressed: true,
      reason: "hard_bounce",
      reactivatable: true,
    });

    const wrongStream = await reactivate(c, { email: to, stream: "newsletter" });
    expect(wrongStream.json.data, describeResponse(wrongStream)).toEqual({ email: to, stream: "newsletter", reactivated: true });
    expect(dump("outbound").body).toMatchObject({ Suppressions: [expect.objectContaining({ EmailAddress: to, SuppressionReason: "HardBounce" })] });

    const r = await reactivate(c, { email: to, stream: "transactional" });
    expect(r.status, describeResponse(r)).toBe(200);
    expect(dump("outbound").body).toEqual({ Suppressions: [] });
    expect((await lookup(c, { emails: [to], stream: "transactional" })).json.data[0]).toEqual({ email: to, suppressed: false });
    expect((await feed<Mail["listSuppressionChanges"]>(c, `since=${since}&stream=transactional`)).json.data).toEqual(
      expect.arrayContaining([expect.objectContaining({ email: to, stream: "transactional", active: false, reason: "hard_bounce" })]),
    );
  });

  test("a spam complaint cannot be lifted: 409 with details.reason = spam_complaint, whether the mirror or only Postmark knows it", async () => {
    const to = "spamcomplaint+nl@bounce-testing.postmarkapp.com";
    const sent = await newsletterThroughSimulator(h, c, to);
    await c.simulator.whenIdle();
    expect((await h.call<Mail["getMessage"]>("GET", `/mail/v1/messages/${sent.messageId}`, { key: c.mailReporting })).json.data.status).toBe("complained");
    const known = await reactivate<ErrorEnvelope>(c, { email: to });
    expect(known.status, describeResponse(known)).toBe(409);
    expect(known.json.error).toMatchObject({ code: "conflict", details: { reason: "spam_complaint" } });
    expect((await lookup(c, { emails: [to] })).json.data[0]).toMatchObject({ suppressed: true, reason: "spam_complaint", reactivatable: false });

    // The mirror has not heard of this complaint (made to forget it here); Postmark refuses the delete.
    const quiet = await newsletterThroughSimulator(h, c, "quiet@example.com");
    c.simulator.complain(quiet.providerMessageId);
    await c.simulator.whenIdle();
    await suppressionChange(c.id, "quiet@example.com", false);
    expect((await lookup(c, { emails: ["quiet@example.com"] })).json.data[0].suppressed).toBe(false);
    const refused = await reactivate<ErrorEnvelope>(c, { email: "quiet@example.com" });
    expect(refused.status, describeResponse(refused)).toBe(409);
    expect(refused.json.error.details).toEqual({ reason: "spam_complaint" });
  });
});

describe("GET /v1/suppressions", () => {
  test("chronological with strictly increasing changed_at even for changes at the same instant; `after` pages without gaps or repeats", async () => {
    const d = await readyMailCustomer(h, "Feed Co");
    const addresses = ["a@example.com", "b@example.com", "c@example.com", "d@example.com", "e@example.com"];
    for (const address of addresses) await suppressionChange(d.id, address, true);
    h.clock.advance(1000);
    await suppressionChange(d.id, "b@example.com", false);
    await suppressionChange(d.id, "t@example.com", true, "HardBounce", "outbound");

    const all = await feed<Mail["listSuppressionChanges"]>(d, `since=${since}`);
    expect(all.status, describeResponse(all)).toBe(200);
    const entries = all.json.data as Entry[];
    expect(entries.map((e) => e.email)).toEqual(["a@example.com", "c@example.com", "d@example.com", "e@example.com", "b@example.com"]);
    expect(entries.at(-1)).toMatchObject({ active: false, reason: "unsubscribe", reactivatable: false });
    const times = entries.map((e) => Date.parse(e.changed_at));
    for (let i = 1; i < times.length; i++) expect(times[i]).toBeGreaterThan(times[i - 1] ?? Infinity);
    expect(all.json.paging).toEqual({ after: null, has_next: false });

    const seen: string[] = [];
    let after: string | null = null;
    do {
      const page: CallResult<Mail["listSuppressionChanges"]> = await feed<Mail["listSuppressionChanges"]>(
        d,
        `since=${since}&limit=2${after ? `&after=${after}` : ""}`,
      );
      expect(page.status, describeResponse(page)).toBe(200);
      expect(page.json.data.length).toBeLessThanOrEqual(2);
      seen.push(...(page.json.data as Entry[]).map((e) => e.email));
      after = page.json.paging.after;
      expect(page.json.paging.has_next).toBe(after !== null);
    } while (after);
    expect(seen).toEqual(entries.map((e) => e.email));

    // `since` is inclusive: passing the last changed_at returns that entry again, then only newer ones.
    const last = entries.at(-1)?.changed_at ?? since;
    expect((await feed<Mail["listSuppressionChanges"]>(d, `since=${encodeURIComponent(last)}`)).json.data.map((e: Entry) => e.email)).toEqual([
      "b@example.com",
    ]);
    await suppressionChange(d.id, "f@example.com", true);
    expect((await feed<Mail["listSuppressionChanges"]>(d, `since=${encodeURIComponent(last)}`)).json.data.map((e: Entry) => e.email)).toEqual([
      "b@example.com",
      "f@example.com",
    ]);

    const transactional = await feed<Mail["listSuppressionChanges"]>(d, `since=${since}&stream=transactional`);
    expect(transactional.json.data).toEqual([expect.objectContaining({ email: "t@example.com", stream: "transactional", reason: "hard_bounce" })]);
    expect((await feed<Mail["listSuppressionChanges"]>(c, `since=${since}`)).json.data.map((e: Entry) => e.email)).not.toContain("a@example.com");
  });

  test("since is required (400) and must be ISO 8601 (422); limit ≤ 500; a bad cursor is 400; a key is needed", async () => {
    expect((await feed(c, "")).status).toBe(400);
    const missing = await feed<ErrorEnvelope>(c, "stream=newsletter");
    expect(missing.status, describeResponse(missing)).toBe(400);
    expect(missing.json.error.code).toBe("bad_request");
    expect((await feed(c, "since=yesterday")).status).toBe(422);
    expect((await feed(c, `since=${since}&limit=501`)).status).toBe(422);
    expect((await feed(c, `since=${since}&limit=500`)).status).toBe(200);
    expect((await feed(c, `since=${since}&stream=marketing`)).status).toBe(422);
    expect((await feed(c, `since=${since}&after=garbage`)).status).toBe(400);
    expect((await h.call("GET", `/mail/v1/suppressions?since=${since}`)).status).toBe(401);
    expect((await h.call("GET", `/mail/v1/suppressions?since=${since}`, { key: c.mailFull })).status).toBe(200);
  });
});

describe("POST /v1/suppressions/lookup", () => {
  test("up to 500 addresses answered from the mirror in order; unsuppressed ones carry only email and suppressed", async () => {
    const d = await readyMailCustomer(h, "Lookup Co");
    await suppressionChange(d.id, "gone@example.com", true, "HardBounce");
    await suppressionChange(d.id, "spam@example.com", true, "SpamComplaint");
    const emails = ["fine@example.com", "GONE@example.com", "spam@example.com", ...Array.from({ length: 497 }, (_, i) => `x${i}@example.com`)];
    const r = await lookup(d, { emails });
    expect(r.status, describeResponse(r)).toBe(200);
    expect(r.json.data).toHaveLength(500);
    expect(r.json.data[0]).toEqual({ email: "fine@example.com", suppressed: false });
    expect(r.json.data[1]).toEqual({ email: "GONE@example.com", suppressed: true, reason: "hard_bounce", reactivatable: true, since: expect.any(String) });
    expect(r.json.data[2]).toMatchObject({ suppressed: true, reason: "spam_complaint", reactivatable: false });
    expect((await lookup(c, { emails: ["gone@example.com"] })).json.data[0].suppressed).toBe(false);
  });

  test("more than 500 addresses 422; none 422; missing 400; not addresses 422; a key is needed", async () => {
    const tooMany = await lookup<ErrorEnvelope<ErrorDetail[]>>(c, { emails: Array.from({ length: 501 }, (_, i) => `x${i}@example.com`) });
    expect(tooMany.status, describeResponse(tooMany)).toBe(422);
    expect(tooMany.json.error.details[0].path).toBe("emails");
    expect((await lookup(c, { emails: [] })).status).toBe(422);
    expect((await lookup(c, {})).status).toBe(400);
    expect((await lookup(c, { emails: ["nope"] })).status).toBe(422);
    expect((await lookup(c, { emails: ["a@example.com"], stream: "all" })).status).toBe(422);
    expect((await h.call("POST", "/mail/v1/suppressions/lookup", { body: { emails: ["a@example.com"] } })).status).toBe(401);
  });
});

describe("POST /v1/suppressions/reactivate", () => {
  test("scope full (reporting 403, no key 401); missing email 400; not an address 422", async () => {
    const reporting = await h.call("POST", "/mail/v1/suppressions/reactivate", { key: c.mailReporting, body: { email: "a@example.com" } });
    expect(reporting.status, describeResponse(reporting)).toBe(403);
    expect((await h.call("POST", "/mail/v1/suppressions/reactivate", { body: { email: "a@example.com" } })).status).toBe(401);
    expect((await reactivate(c, {})).status).toBe(400);
    expect((await reactivate(c, { email: "not an address" })).status).toBe(422);
    expect((await reactivate(c, { email: "a@example.com", stream: "both" })).status).toBe(422);
  });

  test("an address that was never suppressed is a no-op success, even for an account without a Postmark server", async () => {
    const bare = await h.customer("No provider Co");
    const r = await h.call<Mail["reactivateSuppression"]>("POST", "/mail/v1/suppressions/reactivate", { key: bare.mailFull, body: { email: "a@example.com" } });
    expect(r.status, describeResponse(r)).toBe(200);
    expect(r.json.data).toEqual({ email: "a@example.com", stream: "newsletter", reactivated: true });
  });

  test("when Postmark cannot be reached (or refuses the token) the answer is 500 and nothing changes", async () => {
    const d = await readyMailCustomer(h, "Broken token Co");
    await suppressionChange(d.id, "stuck@example.com", true);
    await h.db
      .update(mailProviderConfigs)
      .set({ serverTokenSealed: h.deps.secrets.seal("not-a-known-token") })
      .where(eq(mailProviderConfigs.customerId, d.id));
    const r = await reactivate(d, { email: "stuck@example.com" });
    expect(r.status, describeResponse(r)).toBe(500);
    expect((await lookup(d, { emails: ["stuck@example.com"] })).json.data[0].suppressed).toBe(true);
  });
});

describe("out-of-order webhooks", () => {
  /** SubscriptionChanges for one address on the broadcast stream, made by Postmark at `at`, on the customer's own URL. */
  const changesOf =
    (customerId: string, recipient: string) =>
    (at: string, suppress: boolean, reason: "ManualSuppression" | "HardBounce" = "ManualSuppression") =>
      postEvent(h, postmarkEvent.subscriptionChange({ at, suppress, reason, origin: "Recipient", messageId: null, recipient, stream: "broadcast" }), {
        customerId,
      });

  test("a suppression older than the mirrored lift arrives late (a retry) and is ignored", async () => {
    const customer = await readyMailCustomer(h, "Order Co");
    const recipient = "late@example.com";
    const change = changesOf(customer.id, recipient);
    await change("2026-03-01T10:00:00Z", true);
    await change("2026-03-01T12:00:00.1234567+00:00", false);
    await change("2026-03-01T11:00:00Z", true);
    const r = await lookup(customer, { emails: [recipient] });
    expect(r.status, describeResponse(r)).toBe(200);
    expect(r.json.data[0]).toEqual({ email: recipient, suppressed: false });
    const entries: Entry[] = (await feed<Mail["listSuppressionChanges"]>(customer, `since=${since}`)).json.data;
    expect(entries.filter((e) => e.email === recipient).map((e) => e.active)).toEqual([false]);
  });

  test("a lift for an address never suppressed in the mirror, then the older suppression late: not suppressed, no feed entry; a newer suppression still applies", async () => {
    const customer = await readyMailCustomer(h, "Order Co 2");
    const recipient = "never-seen@example.com";
    const change = changesOf(customer.id, recipient);
    const lift = await change("2026-03-01T12:00:00Z", false);
    expect(lift.status, describeResponse(lift)).toBe(200);
    const late = await change("2026-03-01T11:00:00Z", true);
    expect(late.status, describeResponse(late)).toBe(200);
    expect(late.json.data.outcome, describeResponse(late)).toBe("ignored");
    const r = await lookup(customer, { emails: [recipient] });
    expect(r.json.data[0], describeResponse(r)).toEqual({ email: recipient, suppressed: false });
    const quiet = await feed<Mail["listSuppressionChanges"]>(customer, `since=${since}`);
    expect(quiet.status, describeResponse(quiet)).toBe(200);
    expect(quiet.json.data, describeResponse(quiet)).toEqual([]);

    // The remembered lift only makes older changes stale: a newer one suppresses and enters the feed.
    const newer = await change("2026-03-01T13:00:00Z", true, "HardBounce");
    expect(newer.json.data.outcome, describeResponse(newer)).toBe("stored");
    expect((await lookup(customer, { emails: [recipient] })).json.data[0]).toMatchObject({ email: recipient, suppressed: true, reason: "hard_bounce" });
    const entries: Entry[] = (await feed<Mail["listSuppressionChanges"]>(customer, `since=${since}`)).json.data;
    expect(entries).toEqual([expect.objectContaining({ email: recipient, active: true, reason: "hard_bounce", reactivatable: true })]);
  });

  test("a newer lift on an already lifted address is remembered too: a suppression between the two, arriving late, is ignored", async () => {
    const customer = await readyMailCustomer(h, "Order Co 3");
    const recipient = "twice-lifted@example.com";
    const change = changesOf(customer.id, recipient);
    await change("2026-03-01T10:00:00Z", true);
    await change("2026-03-01T11:00:00Z", false);
    await change("2026-03-01T13:00:00Z", false);
    await change("2026-03-01T12:00:00Z", true);
    expect((await lookup(customer, { emails: [recipient] })).json.data[0]).toEqual({ email: recipient, suppressed: false });
    const entries: Entry[] = (await feed<Mail["listSuppressionChanges"]>(customer, `since=${since}`)).json.data;
    expect(entries.map((e) => [e.email, e.active])).toEqual([[recipient, false]]);
  });
});
