import fc from "fast-check";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { mailMessages } from "../../lib/db/schema";
import { createHarness, describeResponse, type Harness, type Mail } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";
import { newsletterMessage, postEvent, postmarkEvent } from "../helpers/postmark-events";

let h: Harness;
let c: Awaited<ReturnType<typeof readyMailCustomer>>;

beforeAll(async () => {
  h = await createHarness();
  c = await readyMailCustomer(h, "Property Co");
});
afterAll(async () => h.close());

/**
 * Timestamps from a narrow window (ties happen) written the ways Postmark writes them (P9): 0–7 fraction
 * digits, `Z` or an offset. The same instant written two ways is two different events.
 */
const timestamp = fc
  .record({
    second: fc.integer({ min: 0, max: 3 }),
    digits: fc.integer({ min: 0, max: 7 }),
    fraction: fc.integer({ min: 0, max: 9_999_999 }),
    offset: fc.boolean(),
  })
  .map(({ second, digits, fraction, offset }) => {
    const frac = digits === 0 ? "" : `.${String(fraction).padStart(7, "0").slice(0, digits)}`;
    return offset ? `2026-11-22T12:00:0${second}${frac}+02:00` : `2026-11-22T10:00:0${second}${frac}Z`;
  });

type Spec = {
  key: string;
  body: (messageId: string) => unknown;
  kind: "delivered" | "bounced" | "soft" | "notice" | "complained" | "opened" | "clicked" | "unsubscribed";
};

const spec: fc.Arbitrary<Spec> = fc.oneof(
  timestamp.map((at): Spec => ({ key: `delivery ${at}`, kind: "delivered", body: (id) => postmarkEvent.delivery({ message_id: id }, at, "broadcast") })),
  fc.tuple(timestamp, fc.integer({ min: 1, max: 6 }), fc.constantFrom("HardBounce", "SoftBounce", "Blocked", "Transient")).map(
    ([at, bounceId, type]): Spec => ({
      // Postmark's bounce ID identifies a bounce: a retried webhook repeats it with the same body.
      key: `bounce ${bounceId}`,
      // Only a final bounce (HardBounce, Inactive) outranks a delivery; SoftBounce and Blocked here are not.
      kind: type === "Transient" ? "notice" : type === "HardBounce" ? "bounced" : "soft",
      body: (id) => postmarkEvent.bounce({ message_id: id }, { at, type, id: bounceId, inactive: type === "HardBounce", stream: "broadcast" }),
    }),
  ),
  fc.tuple(timestamp, fc.integer({ min: 1, max: 3 })).map(
    ([at, complaintId]): Spec => ({
      key: `complaint ${complaintId}`,
      kind: "complained",
      body: (id) => postmarkEvent.complaint({ message_id: id }, { at, id: complaintId, stream: "broadcast" }),
    }),
  ),
  fc
    .tuple(timestamp, fc.boolean())
    .map(([at, firstOpen]): Spec => ({ key: `open ${at}`, kind: "opened", body: (id) => postmarkEvent.open({ message_id: id }, { at, firstOpen }) })),
  fc
    .tuple(timestamp, fc.constantFrom("https://a.example.com/", "https://b.example.com/"))
    .map(([at, url]): Spec => ({ key: `click ${at} ${url}`, kind: "clicked", body: (id) => postmarkEvent.click({ message_id: id }, { at, url }) })),
  fc
    .tuple(timestamp, fc.constantFrom("HardBounce", "SpamComplaint", "ManualSuppression") as fc.Arbitrary<"HardBounce" | "SpamComplaint" | "ManualSuppression">)
    .map(
      ([at, reason]): Spec => ({
        key: `subscription ${at} ${reason}`,
        kind: reason === "HardBounce" ? "bounced" : reason === "SpamComplaint" ? "complained" : "unsubscribed",
        body: (id) => postmarkEvent.subscriptionChange({ metadata: { message_id: id }, at, suppress: true, reason, recipient: "property@example.com" }),
      }),
    ),
);

/** A set of distinct events and an arrival order that permutes them and repeats some. */
const scenario = fc
  .record({
    events: fc.uniqueArray(spec, { selector: (s) => s.key, minLength: 1, maxLength: 8 }),
    start: fc.constantFrom("accepted", "unknown") as fc.Arbitrary<"accepted" | "unknown">,
  })
  .chain(({ events, start }) =>
    fc
      .array(fc.integer({ min: 0, max: events.length - 1 }), { maxLength: events.length })
      .chain((repeats) =>
        fc.shuffledSubarray([...events.keys(), ...repeats], { minLength: events.length + repeats.length, maxLength: events.length + repeats.length }),
      )
      .map((order) => ({ events, start, order })),
  );

async function messageAfter(events: Spec[], start: "accepted" | "unknown") {
  const id = await newsletterMessage(h, c.id, start);
  for (const event of events) {
    const r = await postEvent(h, event.body(id));
    expect(r.status, describeResponse(r)).toBe(200);
  }
  const m = await h.call<Mail["getMessage"]>("GET", `/mail/v1/messages/${id}`, { key: c.mailReporting });
  expect(m.status, describeResponse(m)).toBe(200);
  // Ids differ between the two messages by construction; everything else must match.
  const {
    id: _id,
    send_job_id: _job,
    template_id: _template,
    events: history,
    ...state
  } = m.json.data as { id: string; events: unknown[]; status: string; first_opened_at: string | null; first_clicked_at: string | null } & Record<
    string,
    unknown
  >;
  const [row] = await h.db.select({ acceptedAt: mailMessages.acceptedAt }).from(mailMessages).where(eq(mailMessages.id, id));
  return { state: { ...state, accepted: row?.acceptedAt !== null }, history: history.map((e) => JSON.stringify(e)).sort() };
}

test("any permutation and duplication of a message's events yields the same final message, with the status by precedence", async () => {
  await fc.assert(
    fc.asyncProperty(scenario, async ({ events, start, order }) => {
      const canonical = await messageAfter(events, start);
      const arrived = await messageAfter(
        order.map((i) => events[i] as Spec),
        start,
      );
      expect(arrived).toEqual(canonical);

      const has = (kind: Spec["kind"]) => events.some((e) => e.kind === kind);
      const expected = has("complained") ? "complained" : has("bounced") ? "bounced" : has("delivered") ? "delivered" : has("soft") ? "bounced" : "accepted";
      expect(canonical.state.status).toBe(expected);
      expect(canonical.state.accepted).toBe(true);
      expect(canonical.state.first_opened_at === null).toBe(!has("opened"));
      expect(canonical.state.first_clicked_at === null).toBe(!has("clicked"));
    }),
    { numRuns: 60 },
  );
}, 120_000);
