import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { mailSuppressions } from "../../lib/db/schema";
import { createHarness, describeResponse, type Harness, type Mail, type Admin } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";
import { postEvent, postmarkEvent, sendTransactional } from "../helpers/postmark-events";

/**
 * Postmark events on a message stream id the customer has not configured (a stream added or renamed at
 * Postmark): stored against their message by our metadata, fed to the suppression mirror, and counted
 * for the operator in GET /admin/v1/customers/{id}/mail/provider.
 */
let h: Harness;
let c: Awaited<ReturnType<typeof readyMailCustomer>>;

beforeAll(async () => {
  h = await createHarness();
  c = await readyMailCustomer(h, "Streams Co");
});
afterAll(async () => h.close());

const STREAM = "outbound-2026";
const mirrorRow = (stream: "newsletter" | "transactional", email: string) =>
  h.db
    .select()
    .from(mailSuppressions)
    .where(and(eq(mailSuppressions.customerId, c.id), eq(mailSuppressions.stream, stream), eq(mailSuppressions.email, email)))
    .then((rows) => rows[0]);
const unconfigured = async () => {
  const r = await h.admin<Admin["getCustomerMailProvider"]>("GET", `/v1/customers/${c.id}/mail/provider`);
  expect(r.status, describeResponse(r)).toBe(200);
  return r.json.data.events_on_unconfigured_streams;
};

describe("events on a stream the customer has not configured", () => {
  test("the operator's count starts at zero", async () => {
    expect(await unconfigured()).toEqual({ count: 0, last_received_at: null, streams: [] });
  });

  test("a delivery and an Inactive hard bounce are stored against the message; the bounce suppresses the address; the operator sees the count", async () => {
    const to = "moved-stream@example.com";
    const id = await sendTransactional(h, c, to);
    const delivered = await postEvent(h, postmarkEvent.delivery({ message_id: id }, "2026-11-22T10:00:00Z", STREAM, to));
    expect(delivered.json.data, describeResponse(delivered)).toMatchObject({ outcome: "stored", message_id: id });
    const bounced = await postEvent(h, postmarkEvent.bounce({ message_id: id }, { at: "2026-11-22T10:00:02Z", email: to, id: 7001, stream: STREAM }));
    expect(bounced.json.data, describeResponse(bounced)).toMatchObject({ outcome: "stored", message_id: id });

    const m = await h.call<Mail["getMessage"]>("GET", `/mail/v1/messages/${id}`, { key: c.mailReporting });
    expect(m.json.data.status, describeResponse(m)).toBe("bounced");
    expect(m.json.data.events.find((e: { type: string }) => e.type === "bounced")?.details).toMatchObject({ unconfigured_stream: STREAM });
    expect(await mirrorRow("transactional", to)).toMatchObject({ active: true, reason: "hard_bounce" });

    const seen = await unconfigured();
    expect(seen).toMatchObject({ count: 2, streams: [STREAM] });
    expect(Date.parse(seen.last_received_at ?? "")).not.toBeNaN();
    // A repeat of the same event is a duplicate and counts nothing twice.
    const again = await postEvent(h, postmarkEvent.bounce({ message_id: id }, { at: "2026-11-22T10:00:02Z", email: to, id: 7001, stream: STREAM }));
    expect(again.json.data.outcome).toBe("duplicate");
    expect((await unconfigured()).count).toBe(2);
  });

  test("a spam complaint and a subscription change without a message of ours still update the mirror", async () => {
    const complainer = "complains@example.com";
    const complaint = await postEvent(h, postmarkEvent.complaint({}, { at: "2026-11-22T11:00:00Z", email: complainer, id: 7002, stream: STREAM }), {
      customerId: c.id,
    });
    expect(complaint.json.data, describeResponse(complaint)).toMatchObject({ outcome: "stored", message_id: null });
    expect(await mirrorRow("transactional", complainer)).toMatchObject({ active: true, reason: "spam_complaint" });

    const leaver = "leaves@example.com";
    const change = postmarkEvent.subscriptionChange({
      at: "2026-11-22T11:00:01Z",
      suppress: true,
      reason: "ManualSuppression",
      stream: "broadcast-2",
      recipient: leaver,
      messageId: null,
    });
    const unsubscribed = await postEvent(h, change, { customerId: c.id });
    expect(unsubscribed.json.data, describeResponse(unsubscribed)).toMatchObject({ outcome: "stored" });
    expect(await mirrorRow("newsletter", leaver)).toMatchObject({ active: true, reason: "unsubscribe" });
    const lines = h.logLines.map((line) => JSON.parse(line) as { message: string; message_stream?: string });
    expect(lines.filter((line) => line.message.includes("not configured")).map((line) => line.message_stream)).toEqual(
      expect.arrayContaining([STREAM, "broadcast-2"]),
    );
  });
});
