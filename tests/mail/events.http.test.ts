import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { mailMessageEvents, mailMessages, mailSuppressions } from "../../lib/db/schema";
import { createHarness, describeResponse, type Harness, type Admin, type ErrorEnvelope, type Mail } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";
import { newsletterMessage, postEvent, postmarkEvent, sendTransactional, webhookAuthorization } from "../helpers/postmark-events";

let h: Harness;
let c: Awaited<ReturnType<typeof readyMailCustomer>>;

beforeAll(async () => {
  h = await createHarness();
  c = await readyMailCustomer(h, "Events Co");
});
afterAll(async () => h.close());

const message = <T>(id: string, key = c.mailReporting) => h.call<T>("GET", `/mail/v1/messages/${id}`, { key });
const storedEvents = (messageId: string) => h.db.select().from(mailMessageEvents).where(eq(mailMessageEvents.messageId, messageId));
const mirrorRow = (customerId: string, stream: "newsletter" | "transactional", email: string) =>
  h.db
    .select()
    .from(mailSuppressions)
    .where(and(eq(mailSuppressions.customerId, customerId), eq(mailSuppressions.stream, stream), eq(mailSuppressions.email, email)))
    .then((rows) => rows[0]);

describe("authentication of POST /api/postmark/webhook/{customer_id}", () => {
  test("no, wrong or malformed Basic credentials answer 401 with a challenge and store nothing", async () => {
    const id = await sendTransactional(h, c);
    const before = (await storedEvents(id)).length;
    const body = postmarkEvent.delivery({ message_id: id }, "2026-11-22T10:00:00Z");
    const wrong = `Basic ${Buffer.from(`postmark:${"x".repeat(24)}`).toString("base64")}`;
    for (const authorization of [null, wrong, "Bearer abc", "Basic !!!", `Basic ${Buffer.from("no-colon").toString("base64")}`]) {
      const r = await postEvent<ErrorEnvelope>(h, body, { authorization });
      expect(r.status, describeResponse(r)).toBe(401);
      expect(r.json.error.code).toBe("unauthorized");
      expect(r.headers.get("www-authenticate")).toMatch(/^Basic /);
    }
    expect(await storedEvents(id)).toHaveLength(before);
    expect((await message<Mail["getMessage"]>(id)).json.data.status).toBe("accepted");
  });

  test("each customer's URL takes only that customer's credentials: another customer's answer 401 and change nothing", async () => {
    const other = await readyMailCustomer(h, "Neighbour Co");
    const email = "victim@example.com";
    const unsubscribe = postmarkEvent.subscriptionChange({
      at: "2026-11-22T10:00:00Z",
      suppress: true,
      reason: "ManualSuppression",
      origin: "Customer",
      messageId: null,
      recipient: email,
    });
    // The neighbour's own, valid credentials, on this customer's URL.
    const foreign = await postEvent(h, unsubscribe, { customerId: c.id, authorization: await webhookAuthorization(h, other.id) });
    expect(foreign.status, describeResponse(foreign)).toBe(401);
    expect(await mirrorRow(c.id, "newsletter", email)).toBeUndefined();
    // And this customer's on the neighbour's URL.
    const back = await postEvent(h, unsubscribe, { customerId: other.id, authorization: await webhookAuthorization(h, c.id) });
    expect(back.status, describeResponse(back)).toBe(401);
    expect(await mirrorRow(other.id, "newsletter", email)).toBeUndefined();
    // The credentials of the two differ, and each works on its own URL.
    expect(await webhookAuthorization(h, c.id)).not.toBe(await webhookAuthorization(h, other.id));
    const own = await postEvent(h, unsubscribe, { customerId: other.id });
    expect(own.json.data.outcome, describeResponse(own)).toBe("stored");
    expect(await mirrorRow(other.id, "newsletter", email)).toMatchObject({ active: true, reason: "unsubscribe" });
    expect(await mirrorRow(c.id, "newsletter", email)).toBeUndefined();
  });

  test("there is no shared URL: POST /api/postmark/webhook answers 404 with any credentials and changes nothing", async () => {
    const id = await sendTransactional(h, c);
    const body = postmarkEvent.delivery({ message_id: id }, "2026-11-22T10:00:00Z");
    const r = await h.call<ErrorEnvelope>("POST", "/api/postmark/webhook", { body, headers: { authorization: await webhookAuthorization(h, c.id) } });
    expect(r.status, describeResponse(r)).toBe(404);
    expect(r.json.error.message).toContain("/api/postmark/webhook/{customer_id}");
    expect((await message<Mail["getMessage"]>(id)).json.data.status).toBe("accepted");
  });

  test("a malformed or unknown customer id, or a customer whose credentials were never made, answers 401", async () => {
    const fresh = await h.customer("No webhook yet");
    const body = postmarkEvent.delivery({}, "2026-11-22T10:00:00Z");
    const anyCredentials = `Basic ${Buffer.from(`postmark-${fresh.id.slice(0, 8)}:guess`).toString("base64")}`;
    for (const customerId of ["not-a-uuid", crypto.randomUUID(), fresh.id]) {
      const r = await postEvent(h, body, { customerId, authorization: anyCredentials });
      expect(r.status, `${customerId}: ${describeResponse(r)}`).toBe(401);
    }
  });

  test("the optional IP allow-list admits listed addresses and ranges only (401 otherwise, never 403)", async () => {
    const listed = await createHarness({ env: { POSTMARK_WEBHOOK_ALLOWED_IPS: "203.0.113.0/24, 2001:db8::1" } });
    try {
      const { id: customerId } = await listed.customer("Listed Co");
      const body = postmarkEvent.subscriptionChange({ at: "2026-11-22T10:00:00Z", suppress: false, messageId: null });
      const authorization = await webhookAuthorization(listed, customerId);
      const from = (ip: string) => postEvent(listed, body, { customerId, authorization, headers: { "x-forwarded-for": `${ip}, 10.0.0.1` } });
      for (const ip of ["203.0.113.9", "2001:db8::1", "::ffff:203.0.113.200"]) {
        const r = await from(ip);
        expect(r.status, `${ip}: ${describeResponse(r)}`).toBe(200);
      }
      for (const ip of ["198.51.100.1", "2001:db8::2", "not-an-ip"]) {
        const r = await from(ip);
        expect(r.status, `${ip}: ${describeResponse(r)}`).toBe(401);
      }
      const noHeader = await postEvent(listed, body, { customerId, authorization });
      expect(noHeader.status, describeResponse(noHeader)).toBe(401);
      const listedButWrongPassword = await postEvent(listed, body, {
        customerId,
        authorization: "Basic cG9zdG1hcms6bm9wZQ==",
        headers: { "x-forwarded-for": "203.0.113.9" },
      });
      expect(listedButWrongPassword.status).toBe(401);
    } finally {
      await listed.close();
    }
  });
});

describe("payloads", () => {
  test("malformed JSON 400; a body that is not an object 400; a known record type without its fields 400; nothing stored", async () => {
    const id = await sendTransactional(h, c);
    const before = (await storedEvents(id)).length;
    const cases: [string, unknown, string | undefined][] = [
      ["malformed JSON", undefined, '{"RecordType": "Delivery",'],
      ["array", [postmarkEvent.delivery({ message_id: id }, "2026-11-22T10:00:00Z")], undefined],
      ["missing DeliveredAt", { ...postmarkEvent.delivery({ message_id: id }, "x"), DeliveredAt: undefined }, undefined],
      ["unparsable timestamp", postmarkEvent.delivery({ message_id: id }, "22.11.2026 10:00"), undefined],
      ["impossible date", postmarkEvent.delivery({ message_id: id }, "2026-02-30T10:00:00Z"), undefined],
      ["Bounce without Inactive", { ...postmarkEvent.bounce({ message_id: id }, { at: "2026-11-22T10:00:00Z" }), Inactive: "yes" }, undefined],
    ];
    for (const [name, body, raw] of cases) {
      const r = await postEvent<ErrorEnvelope>(h, body, { raw, customerId: c.id });
      expect(r.status, `${name}: ${describeResponse(r)}`).toBe(400);
      expect(r.json.error.code).toBe("bad_request");
    }
    expect(await storedEvents(id)).toHaveLength(before);
  });

  test("unknown record types and unknown or missing message ids are acknowledged (200) and ignored", async () => {
    const id = await sendTransactional(h, c);
    const cases: [string, unknown][] = [
      ["inbound (no RecordType)", { From: "a@example.com", MessageID: "x", Subject: "Hi" }],
      ["unknown RecordType", { RecordType: "SMTPApiError", Metadata: { message_id: id } }],
      ["unknown message id", postmarkEvent.delivery({ message_id: crypto.randomUUID() }, "2026-11-22T10:00:00Z")],
      ["no Metadata", { ...postmarkEvent.delivery({}, "2026-11-22T10:00:00Z"), Metadata: undefined }],
      ["numeric message_id (P8)", postmarkEvent.delivery({ message_id: 43 as unknown as string }, "2026-11-22T10:00:00Z")],
      ["open of a transactional mail", postmarkEvent.open({ message_id: id }, { at: "2026-11-22T10:00:00Z", stream: "outbound" })],
    ];
    for (const [name, body] of cases) {
      const r = await postEvent(h, body, { customerId: c.id });
      expect(r.status, `${name}: ${describeResponse(r)}`).toBe(200);
      expect(r.json.data.outcome, name).toBe("ignored");
    }
    const after = await message<Mail["getMessage"]>(id);
    expect(after.json.data.status, describeResponse(after)).toBe("accepted");
    expect(after.json.data.first_opened_at).toBeNull();
    expect((await storedEvents(id)).map((e) => e.type)).toEqual(["accepted"]);
  });

  test("on a customer's own URL, another customer's message is ignored", async () => {
    const other = await readyMailCustomer(h, "Other Co");
    const id = await sendTransactional(h, c);
    const foreign = await postEvent(h, postmarkEvent.delivery({ message_id: id }, "2026-11-22T10:00:00Z"), { customerId: other.id });
    expect(foreign.status, describeResponse(foreign)).toBe(200);
    expect(foreign.json.data.outcome).toBe("ignored");
    expect((await message<Mail["getMessage"]>(id)).json.data.status).toBe("accepted");
    const own = await postEvent(h, postmarkEvent.delivery({ message_id: id }, "2026-11-22T10:00:00Z"), { customerId: c.id });
    expect(own.json.data.outcome, describeResponse(own)).toBe("stored");
  });

  test("without our id in Metadata an event is attributed by Postmark's MessageID stored at send time, on the owner's URL only", async () => {
    const other = await readyMailCustomer(h, "MessageID Co");
    const id = await sendTransactional(h, c, "by-provider-id@example.com");
    const [row] = await h.db.select().from(mailMessages).where(eq(mailMessages.id, id));
    expect(row?.providerMessageId).toBeTruthy();
    const body = { ...postmarkEvent.delivery({}, "2026-11-22T10:00:00Z", "outbound", "by-provider-id@example.com"), MessageID: row?.providerMessageId };
    const foreign = await postEvent(h, body, { customerId: other.id });
    expect(foreign.json.data.outcome, describeResponse(foreign)).toBe("ignored");
    expect((await message<Mail["getMessage"]>(id)).json.data.status).toBe("accepted");
    const own = await postEvent(h, body, { customerId: c.id });
    expect(own.json.data, describeResponse(own)).toMatchObject({ outcome: "stored", message_id: id });
    expect((await message<Mail["getMessage"]>(id)).json.data.status).toBe("delivered");
  });

  test("NUL characters are dropped, not refused: the event is stored and answered 200, so Postmark stops retrying", async () => {
    const email = "nul\\u0000user@example.com";
    const raw = JSON.stringify(
      postmarkEvent.subscriptionChange({
        at: "2026-11-22T10:00:00Z",
        suppress: true,
        reason: "ManualSuppression",
        origin: "Customer",
        messageId: null,
        recipient: "x",
      }),
    ).replace('"x"', `"${email}"`);
    const r = await postEvent(h, undefined, { customerId: c.id, raw });
    expect(r.status, describeResponse(r)).toBe(200);
    expect(await mirrorRow(c.id, "newsletter", "nuluser@example.com")).toMatchObject({ active: true });
    const deep = await postEvent(h, undefined, { customerId: c.id, raw: `${"[".repeat(40)}${"]".repeat(40)}` });
    expect(deep.status, describeResponse(deep)).toBe(400);
  });

  test("lone surrogates are replaced (U+FFFD), not refused: a bounce whose Description holds one is stored and answered 200", async () => {
    const id = await sendTransactional(h, c, "surrogate-bounce@example.com");
    const bounce = postmarkEvent.bounce({ message_id: id }, { at: "2026-11-22T10:00:01Z", email: "surrogate-bounce@example.com", id: 7301 });
    // As the wire carries it: a JSON escape of half a surrogate pair, which no PostgreSQL jsonb column accepts.
    const raw = JSON.stringify({ ...bounce, Description: "broken DESCRIPTION", Details: "x" })
      .replace("broken DESCRIPTION", "broken \\ud800 text")
      .replace('"Details":"x"', '"Details":"\\udc00\\ud83d"');
    expect(raw).toContain("\\ud800");
    const r = await postEvent(h, undefined, { customerId: c.id, raw });
    expect(r.status, describeResponse(r)).toBe(200);
    expect(r.json.data, describeResponse(r)).toMatchObject({ outcome: "stored", message_id: id });
    const m = await message<Mail["getMessage"]>(id);
    expect(m.json.data.status, describeResponse(m)).toBe("bounced");
  });

  test("bytes that are not UTF-8 are replaced (U+FFFD), not refused: the event is stored, answered 200, and the replacement logged", async () => {
    const id = await sendTransactional(h, c, "bytes-bounce@example.com");
    const bounce = postmarkEvent.bounce({ message_id: id }, { at: "2026-11-22T10:00:02Z", email: "bytes-bounce@example.com", id: 7302 });
    const [head, tail] = JSON.stringify({ ...bounce, Description: "RAW" }).split("RAW");
    // A UTF-8-encoded surrogate (ED A0 80), a lone FF and an overlong slash (C0 AF).
    const raw = new Uint8Array([...Buffer.from(head ?? ""), 0xed, 0xa0, 0x80, 0x20, 0xff, 0x20, 0xc0, 0xaf, ...Buffer.from(tail ?? "")]);
    const logged = h.logLines.length;
    const r = await postEvent(h, undefined, { customerId: c.id, raw });
    expect(r.status, describeResponse(r)).toBe(200);
    expect(r.json.data, describeResponse(r)).toMatchObject({ outcome: "stored", message_id: id });
    const m = await message<Mail["getMessage"]>(id);
    expect(m.json.data.status, describeResponse(m)).toBe("bounced");
    const warning = h.logLines.slice(logged).find((line) => line.includes("postmark webhook: text no column can hold was replaced"));
    expect(warning, h.logLines.slice(logged).join("\n")).toContain('"invalid_utf8_bytes":"ED A0 80"');
  });
});

describe("message state", () => {
  test("Delivery with 7 fraction digits and an offset sets delivered_at; a repeated delivery changes nothing", async () => {
    const id = await sendTransactional(h, c);
    // Postmark's own format (seven fraction digits, the sender's offset), a minute after the send: the
    // events list is chronological, and the `accepted` event carries the real time of the send.
    const at = new Date(Math.floor(Date.now() / 1000) * 1000 + 60_907);
    const eastern = new Date(at.getTime() - 5 * 3600_000).toISOString().slice(0, 23);
    const body = postmarkEvent.delivery({ message_id: id }, `${eastern}0259-05:00`);
    const first = await postEvent(h, body);
    expect(first.status, describeResponse(first)).toBe(200);
    expect(first.json.data).toMatchObject({ outcome: "stored", record_type: "Delivery", message_id: id });
    const again = await postEvent(h, body);
    expect(again.json.data.outcome, describeResponse(again)).toBe("duplicate");
    const m = await message<Mail["getMessage"]>(id);
    expect(m.json.data, describeResponse(m)).toMatchObject({ status: "delivered", delivered_at: at.toISOString(), bounced_at: null });
    expect(m.json.data.events.map((e: { type: string }) => e.type)).toEqual(["accepted", "delivered"]);
    expect(m.text).not.toContain("jane@example.com");
  });

  test("a hard bounce (Inactive) makes the message bounced, suppresses the address on the transactional stream and blocks the next send", async () => {
    const to = "gone-forever@example.com";
    const id = await sendTransactional(h, c, to);
    await postEvent(h, postmarkEvent.delivery({ message_id: id }, "2026-11-22T10:00:00.1Z"));
    const r = await postEvent(h, postmarkEvent.bounce({ message_id: id }, { at: "2026-11-22T10:00:01.4178645Z", email: "Gone-Forever@example.com", id: 1001 }));
    expect(r.json.data.outcome, describeResponse(r)).toBe("stored");
    const m = await message<Mail["getMessage"]>(id);
    expect(m.json.data).toMatchObject({
      status: "bounced",
      bounce_type: "HardBounce",
      bounced_at: "2026-11-22T10:00:01.417Z",
      delivered_at: "2026-11-22T10:00:00.100Z",
    });
    const bounced = m.json.data.events.find((e: { type: string }) => e.type === "bounced");
    expect(bounced?.details).toMatchObject({ bounce_type: "HardBounce", type_code: 1, inactive: true, source: "bounce" });
    expect(JSON.stringify(bounced?.details)).not.toContain("example.com");

    expect(await mirrorRow(c.id, "transactional", to)).toMatchObject({ active: true, reason: "hard_bounce" });
    expect(await mirrorRow(c.id, "newsletter", to)).toBeUndefined();
    const next = await h.call<Mail["lookupSuppressions"]>("POST", `/mail/v1/suppressions/lookup`, {
      key: c.mailReporting,
      body: { emails: [to], stream: "transactional" },
    });
    expect(next.json.data[0], describeResponse(next)).toMatchObject({ suppressed: true, reason: "hard_bounce", reactivatable: true });
    const before = c.simulator.stats().received;
    const [template] = (await h.call<Mail["listTemplates"]>("GET", "/mail/v1/templates", { key: c.mailReporting })).json.data;
    const send = await h.call<Mail["sendTemplate"]>("POST", `/mail/v1/templates/${template.id}/send`, {
      key: c.mailFull,
      body: { to, params: { order_number: "A-2", order_url: "https://shop.example.com/o/A-2" } },
    });
    expect(send.json.data.status, describeResponse(send)).toBe("suppressed");
    expect(c.simulator.stats().received).toBe(before);
  });

  test("a soft bounce is a bounce without suppression that a later delivery overrides; a transient one (delayed) changes no state", async () => {
    const soft = await sendTransactional(h, c, "full-mailbox@example.com");
    const later = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();
    await postEvent(
      h,
      postmarkEvent.bounce(
        { message_id: soft },
        { at: later(1), type: "SoftBounce", typeCode: 4096, inactive: false, id: 2001, email: "full-mailbox@example.com" },
      ),
    );
    expect((await message<Mail["getMessage"]>(soft)).json.data).toMatchObject({ status: "bounced", bounce_type: "SoftBounce" });
    expect(await mirrorRow(c.id, "transactional", "full-mailbox@example.com")).toBeUndefined();
    await postEvent(h, postmarkEvent.delivery({ message_id: soft }, later(30), "outbound", "full-mailbox@example.com"));
    const delivered = await message<Mail["getMessage"]>(soft);
    expect(delivered.json.data, describeResponse(delivered)).toMatchObject({ status: "delivered", bounce_type: "SoftBounce" });
    expect(delivered.json.data.events.find((e: { type: string }) => e.type === "bounced")?.details).toMatchObject({ final: false, inactive: false });
    // A bounce Postmark deactivated the address for (Inactive) is final even when its type is soft.
    await postEvent(
      h,
      postmarkEvent.bounce(
        { message_id: soft },
        { at: later(40), type: "SoftBounce", typeCode: 4096, inactive: true, id: 2003, email: "full-mailbox@example.com" },
      ),
    );
    expect((await message<Mail["getMessage"]>(soft)).json.data).toMatchObject({ status: "bounced", bounce_type: "SoftBounce" });

    const delayed = await sendTransactional(h, c, "slow@example.com");
    // After the send (the events list is chronological and `accepted` carries the real time of the send).
    await postEvent(
      h,
      postmarkEvent.bounce({ message_id: delayed }, { at: later(1), type: "Transient", typeCode: 2, inactive: false, id: 2002, email: "slow@example.com" }),
    );
    await postEvent(h, postmarkEvent.delivery({ message_id: delayed }, later(60)));
    const m = await message<Mail["getMessage"]>(delayed);
    expect(m.json.data, describeResponse(m)).toMatchObject({ status: "delivered", bounce_type: null, bounced_at: null });
    expect(m.json.data.events.map((e: { type: string }) => e.type)).toEqual(["accepted", "bounce_notice", "delivered"]);
  });

  test("a spam complaint (matched on RecordType, not TypeCode 512) makes the message complained and suppresses for good", async () => {
    const id = await sendTransactional(h, c, "angry@example.com");
    await postEvent(h, postmarkEvent.delivery({ message_id: id }, "2026-11-22T10:00:00Z"));
    const r = await postEvent(h, postmarkEvent.complaint({ message_id: id }, { at: "2026-11-22T12:00:00+02:00", email: "angry@example.com", id: 3001 }));
    expect(r.json.data.outcome, describeResponse(r)).toBe("stored");
    expect((await message<Mail["getMessage"]>(id)).json.data).toMatchObject({ status: "complained", complained_at: "2026-11-22T10:00:00.000Z" });
    expect(await mirrorRow(c.id, "transactional", "angry@example.com")).toMatchObject({ active: true, reason: "spam_complaint" });
  });

  test("opens and clicks are recorded for newsletters only, with first_opened_at / first_clicked_at the earliest", async () => {
    const id = await newsletterMessage(h, c.id);
    await postEvent(h, postmarkEvent.open({ message_id: id }, { at: "2026-11-22T12:00:00Z", firstOpen: false }));
    await postEvent(h, postmarkEvent.open({ message_id: id }, { at: "2026-11-22T11:00:00.5Z", firstOpen: true }));
    await postEvent(h, postmarkEvent.click({ message_id: id }, { at: "2026-11-22T11:05:00Z", url: "https://shop.example.com/spring" }));
    const m = await message<Mail["getMessage"]>(id);
    expect(m.json.data, describeResponse(m)).toMatchObject({
      status: "accepted",
      first_opened_at: "2026-11-22T11:00:00.500Z",
      first_clicked_at: "2026-11-22T11:05:00.000Z",
    });
    const click = m.json.data.events.find((e: { type: string }) => e.type === "clicked");
    expect(click?.details).toMatchObject({ url: "https://shop.example.com/spring", location: "HTML" });
    expect(m.json.data.events.filter((e: { type: string }) => e.type === "opened")).toHaveLength(2);
    expect(m.text).not.toContain("188.2.95.4");
  });

  test("a newsletter's hard bounce and complaint arrive as SubscriptionChange (broadcast streams have no Bounce webhook)", async () => {
    const bounced = await newsletterMessage(h, c.id);
    const r = await postEvent(
      h,
      postmarkEvent.subscriptionChange({
        metadata: { message_id: bounced },
        at: "2026-11-22T10:00:00Z",
        suppress: true,
        reason: "HardBounce",
        recipient: "nl-bounce@example.com",
      }),
    );
    expect(r.json.data.outcome, describeResponse(r)).toBe("stored");
    expect((await message<Mail["getMessage"]>(bounced)).json.data).toMatchObject({ status: "bounced", bounce_type: "HardBounce" });
    expect(await mirrorRow(c.id, "newsletter", "nl-bounce@example.com")).toMatchObject({ active: true, reason: "hard_bounce" });

    const complained = await newsletterMessage(h, c.id);
    await postEvent(
      h,
      postmarkEvent.subscriptionChange({
        metadata: { message_id: complained },
        at: "2026-11-22T10:00:00Z",
        suppress: true,
        reason: "SpamComplaint",
        recipient: "nl-spam@example.com",
      }),
    );
    expect((await message<Mail["getMessage"]>(complained)).json.data.status).toBe("complained");

    const unsubscribed = await newsletterMessage(h, c.id);
    await postEvent(
      h,
      postmarkEvent.subscriptionChange({
        metadata: { message_id: unsubscribed },
        at: "2026-11-22T10:00:00Z",
        suppress: true,
        reason: "ManualSuppression",
        origin: "Recipient",
        recipient: "nl-bye@example.com",
      }),
    );
    const m = await message<Mail["getMessage"]>(unsubscribed);
    expect(m.json.data.status, describeResponse(m)).toBe("accepted");
    expect(m.json.data.events.map((e: { type: string }) => e.type)).toContain("unsubscribed");
    expect(await mirrorRow(c.id, "newsletter", "nl-bye@example.com")).toMatchObject({ active: true, reason: "unsubscribe" });
  });

  test("an `unknown` message (Postmark's answer was lost) is corrected by a later event and then counts as accepted", async () => {
    c.simulator.setFaults({ mode: "error500" });
    const [template] = (await h.call<Mail["listTemplates"]>("GET", "/mail/v1/templates", { key: c.mailReporting })).json.data;
    const send = await h.call<ErrorEnvelope>("POST", `/mail/v1/templates/${template.id}/send`, {
      key: c.mailFull,
      body: { to: "lost@example.com", params: { order_number: "A-3", order_url: "https://shop.example.com/o/A-3" } },
    });
    expect(send.status, describeResponse(send)).toBe(500);
    const id = send.json.error.message_id;
    if (!id) throw new Error(describeResponse(send));
    expect((await message<Mail["getMessage"]>(id)).json.data.status).toBe("unknown");
    const r = await postEvent(h, postmarkEvent.delivery({ message_id: id }, "2026-11-22T10:00:00Z"));
    expect(r.json.data.outcome, describeResponse(r)).toBe("stored");
    const m = await message<Mail["getMessage"]>(id);
    expect(m.json.data, describeResponse(m)).toMatchObject({ status: "delivered", error: null });
    expect(m.json.data.events.map((e: { type: string }) => e.type)).toEqual(expect.arrayContaining(["unknown", "accepted", "delivered"]));
    const [row] = await h.db.select().from(mailMessages).where(eq(mailMessages.id, id));
    expect(row?.acceptedAt).toEqual(row?.createdAt);
  });

  test("an event for a message still marked `sending` answers 503 (Postmark retries) and stores nothing", async () => {
    const id = await newsletterMessage(h, c.id, "sending");
    const r = await postEvent(h, postmarkEvent.delivery({ message_id: id }, "2026-11-22T10:00:00Z", "broadcast"));
    expect(r.status, describeResponse(r)).toBe(503);
    expect(r.json, describeResponse(r)).toMatchObject({ error: { code: "service_unavailable", details: [] }, request_id: r.headers.get("x-request-id") });
    expect(await storedEvents(id)).toHaveLength(0);
    await h.db.update(mailMessages).set({ status: "accepted" }).where(eq(mailMessages.id, id));
    const retried = await postEvent(h, postmarkEvent.delivery({ message_id: id }, "2026-11-22T10:00:00Z", "broadcast"));
    expect(retried.json.data.outcome, describeResponse(retried)).toBe("stored");
  });

  test("a reactivation (null MessageID, reason and tag, `{}` metadata) is attributed by the customer's URL", async () => {
    const email = "welcome-back@example.com";
    await postEvent(
      h,
      postmarkEvent.subscriptionChange({
        at: "2026-11-22T10:00:00Z",
        suppress: true,
        reason: "ManualSuppression",
        origin: "Customer",
        messageId: null,
        recipient: email,
      }),
      { customerId: c.id },
    );
    expect(await mirrorRow(c.id, "newsletter", email)).toMatchObject({ active: true, reason: "unsubscribe" });
    const lift = postmarkEvent.subscriptionChange({ at: "2026-11-22T11:00:00Z", suppress: false, messageId: null, recipient: email });
    const own = await postEvent(h, lift, { customerId: c.id });
    expect(own.json.data.outcome, describeResponse(own)).toBe("stored");
    expect(await mirrorRow(c.id, "newsletter", email)).toMatchObject({ active: false, reason: "unsubscribe" });
    const again = await postEvent(h, lift, { customerId: c.id });
    expect(again.json.data.outcome).toBe("ignored");
  });
});

describe("GET /admin/v1/customers/{id}/mail/postmark-webhook", () => {
  test("shows the customer's own URL and streams (the password only revealed); the URL works as Postmark uses it", async () => {
    const shown = await h.admin<Admin["getCustomerPostmarkWebhook"]>("GET", `/v1/customers/${c.id}/mail/postmark-webhook`);
    expect(shown.status, describeResponse(shown)).toBe(200);
    expect(shown.json.data.url).toBe(`http://localhost:3000/api/postmark/webhook/${c.id}`);
    expect(shown.json.data.password_state.set).toBe(true);
    expect(shown.text).not.toContain('"password":');
    const own = await h.admin<Admin["revealCustomerPostmarkWebhook"]>("POST", `/v1/customers/${c.id}/mail/postmark-webhook/reveal`);
    expect(own.status, describeResponse(own)).toBe(200);
    const { username, password } = own.json.data;
    expect(password.length).toBeGreaterThanOrEqual(24);
    expect(own.json.data).toMatchObject({
      url: `http://localhost:3000/api/postmark/webhook/${c.id}`,
      url_with_credentials: `http://${username}:${password}@localhost:3000/api/postmark/webhook/${c.id}`,
      customer_id: c.id,
      previous_password_valid_until: null,
      message_streams: ["outbound", "broadcast"],
      record_types: ["Delivery", "Bounce", "SpamComplaint", "Open", "Click", "SubscriptionChange"],
    });
    // Stable until rotated.
    const again = await h.admin<Admin["revealCustomerPostmarkWebhook"]>("POST", `/v1/customers/${c.id}/mail/postmark-webhook/reveal`);
    expect(again.json.data.password).toBe(password);

    // The URL works as Postmark would use it: credentials out of the URL into Basic auth.
    const url = new URL(own.json.data.url_with_credentials);
    const posted = await postEvent(h, postmarkEvent.subscriptionChange({ at: "2026-11-22T10:00:00Z", suppress: false, messageId: null }), {
      customerId: c.id,
      authorization: `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString("base64")}`,
    });
    expect(posted.status, describeResponse(posted)).toBe(200);

    expect((await h.admin("GET", `/v1/customers/${crypto.randomUUID()}/mail/postmark-webhook`)).status).toBe(404);
    expect((await h.admin("POST", `/v1/customers/${crypto.randomUUID()}/mail/postmark-webhook/rotate`, {})).status).toBe(404);
    expect((await h.admin("GET", "/v1/customers/nope/mail/postmark-webhook")).status).toBe(422);
    expect((await h.call("GET", `/admin/v1/customers/${c.id}/mail/postmark-webhook`)).status).toBe(401);
    expect((await h.call("GET", `/admin/v1/customers/${c.id}/mail/postmark-webhook`, { key: c.mailFull })).status).toBe(401);
  });

  // Last in the file: it moves the harness clock forward.
  test("POST …/rotate makes a new password; the previous one works through the grace period and not after", async () => {
    const owner = await readyMailCustomer(h, "Rotating Co");
    const before = await webhookAuthorization(h, owner.id);
    const rotated = await h.admin<Admin["rotateCustomerPostmarkWebhookPassword"]>("POST", `/v1/customers/${owner.id}/mail/postmark-webhook/rotate`, {
      grace_seconds: 600,
    });
    expect(rotated.status, describeResponse(rotated)).toBe(200);
    expect(rotated.json.data.previous_password_valid_until).toBe(new Date(h.clock.now().getTime() + 600_000).toISOString());
    const after = await webhookAuthorization(h, owner.id);
    expect(after).not.toBe(before);
    const body = (at: string) =>
      postmarkEvent.subscriptionChange({
        at,
        suppress: true,
        reason: "ManualSuppression",
        origin: "Customer",
        messageId: null,
        recipient: `rot-${at.slice(11, 13)}@example.com`,
      });
    expect((await postEvent(h, body("2026-11-22T10:00:00Z"), { customerId: owner.id, authorization: before })).status).toBe(200);
    expect((await postEvent(h, body("2026-11-22T11:00:00Z"), { customerId: owner.id, authorization: after })).status).toBe(200);
    h.clock.advance(601_000);
    const late = await postEvent(h, body("2026-11-22T12:00:00Z"), { customerId: owner.id, authorization: before });
    expect(late.status, describeResponse(late)).toBe(401);
    expect(await mirrorRow(owner.id, "newsletter", "rot-12@example.com")).toBeUndefined();
    expect((await postEvent(h, body("2026-11-22T13:00:00Z"), { customerId: owner.id, authorization: after })).status).toBe(200);
    // Without a body the grace period is a day; 0 ends the previous password at once.
    const now = await h.admin<Admin["rotateCustomerPostmarkWebhookPassword"]>("POST", `/v1/customers/${owner.id}/mail/postmark-webhook/rotate`, {
      grace_seconds: 0,
    });
    expect(now.json.data.previous_password_valid_until, describeResponse(now)).toBeNull();
    expect((await postEvent(h, body("2026-11-22T14:00:00Z"), { customerId: owner.id, authorization: after })).status).toBe(401);
    const unbodied = await h.call<Admin["rotateCustomerPostmarkWebhookPassword"]>("POST", `/admin/v1/customers/${owner.id}/mail/postmark-webhook/rotate`, {
      key: h.deps.adminToken,
    });
    expect(unbodied.json.data.previous_password_valid_until, describeResponse(unbodied)).toBe(new Date(h.clock.now().getTime() + 86_400_000).toISOString());
    const tooLong = await h.admin("POST", `/v1/customers/${owner.id}/mail/postmark-webhook/rotate`, { grace_seconds: 8 * 86_400 });
    expect(tooLong.status, describeResponse(tooLong)).toBe(422);
    // Rows hold only the sealed password.
    const stored = JSON.stringify(await h.db.execute(sql`select * from mail_postmark_webhook_credentials where customer_id = ${owner.id}`));
    expect(stored).not.toContain(Buffer.from(after.slice(6), "base64").toString().split(":")[1]);
  });
});
