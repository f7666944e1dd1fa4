import fc from "fast-check";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { mailSuppressions } from "../../lib/db/schema";
import { createHarness, describeResponse, type Harness } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";
import { postEvent, postmarkEvent } from "../helpers/postmark-events";

let h: Harness;
let c: Awaited<ReturnType<typeof readyMailCustomer>>;

beforeAll(async () => {
  h = await createHarness();
  c = await readyMailCustomer(h, "Ties Co");
});
afterAll(async () => h.close());

type Change = { at: number; suppress: boolean; reason: "HardBounce" | "SpamComplaint" | "ManualSuppression" };

const change = (at: fc.Arbitrary<number>): fc.Arbitrary<Change> =>
  fc.record({ at, suppress: fc.boolean(), reason: fc.constantFrom("HardBounce", "SpamComplaint", "ManualSuppression") as fc.Arbitrary<Change["reason"]> });

/** Earlier history in arrival order, then two or three changes with one provider time, in two arrival orders. */
const scenario = fc
  .record({
    history: fc.array(change(fc.integer({ min: 0, max: 4 })), { maxLength: 3 }),
    tied: fc.array(change(fc.constant(5)), { minLength: 2, maxLength: 3 }),
  })
  .chain(({ history, tied }) =>
    fc.tuple(fc.constant(history), fc.constant(tied), fc.shuffledSubarray(tied, { minLength: tied.length, maxLength: tied.length })),
  );

let run = 0;

async function mirrorAfter(changes: Change[]) {
  run += 1;
  const email = `tie-${run}@example.com`;
  for (const item of changes) {
    const at = `2026-11-22T10:00:0${item.at}Z`;
    const body = postmarkEvent.subscriptionChange({
      at,
      suppress: item.suppress,
      reason: item.suppress ? item.reason : null,
      origin: "Recipient",
      messageId: null,
      recipient: email,
    });
    const r = await postEvent(h, body, { customerId: c.id });
    expect(r.status, describeResponse(r)).toBe(200);
  }
  const [row] = await h.db
    .select({ active: mailSuppressions.active, reason: mailSuppressions.reason })
    .from(mailSuppressions)
    .where(and(eq(mailSuppressions.customerId, c.id), eq(mailSuppressions.stream, "newsletter"), eq(mailSuppressions.email, email)));
  return { active: row?.active ?? false, reason: row?.active ? row.reason : null };
}

const REASON = { HardBounce: "hard_bounce", SpamComplaint: "spam_complaint", ManualSuppression: "unsubscribe" } as const;
const RANK = { unsubscribe: 0, hard_bounce: 1, spam_complaint: 2 } as const;

test("changes with the same provider time end the same way in any arrival order: the suppression wins, with the strongest reason", async () => {
  await fc.assert(
    fc.asyncProperty(scenario, async ([history, tied, shuffled]) => {
      const before = await mirrorAfter(history);
      const first = await mirrorAfter([...history, ...tied]);
      const second = await mirrorAfter([...history, ...shuffled]);
      expect(second).toEqual(first);
      const sets = tied.filter((t) => t.suppress).map((t) => REASON[t.reason]);
      if (sets.length === 0) {
        expect(first.active).toBe(false);
      } else {
        // The strongest of the reasons set at that time and the one in force just before it.
        const candidates = before.active && before.reason ? [...sets, before.reason] : sets;
        const strongest = candidates.reduce((a, b) => (RANK[b] > RANK[a] ? b : a));
        expect(first).toEqual({ active: true, reason: strongest });
      }
    }),
    { numRuns: 40, seed: 20261124 },
  );
}, 180_000);
