import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { mailMessages, mailTemplates } from "../../lib/db/schema";
import { DEMO_TRANSACTIONAL_TEMPLATE } from "../../lib/mail/seed";
import { type MonthlyRoom, reserveMonthlyRoom } from "../../lib/mail/usage/meter";
import { createHarness, type Harness } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";

/*
 * The monthly meter's reading never counts a send twice: a send commits its accepted message and then adds
 * it to the process's tally, and a reading of the month's count that fell between the two would hold the
 * message and the tally would add it again (seen as one recipient too few for a job next to concurrent
 * transactional mail). Here a fresh reading is asked for while a send's commit is done but not yet tallied.
 */

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

test("a reading asked for between a send's commit and its tally waits for the tally and counts the send once", async () => {
  const c = await readyMailCustomer(h, "Meter");
  const [template] = await h.db
    .select({ id: mailTemplates.id })
    .from(mailTemplates)
    .where(and(eq(mailTemplates.customerId, c.id), eq(mailTemplates.name, DEMO_TRANSACTIONAL_TEMPLATE)));
  const now = h.clock.now();
  const input = { customerId: c.id, now, limit: 10, want: 1, fresh: true };

  const first = await reserveMonthlyRoom(h.mailDeps, input);
  expect(first).toMatchObject({ granted: 1, accepted: 0 });
  let second: Promise<MonthlyRoom> | null = null;
  let secondDoneInsideWrite = false;
  await first.settle(
    async () => {
      await h.db.insert(mailMessages).values({
        customerId: c.id,
        kind: "transactional",
        mode: "live",
        status: "accepted",
        templateId: template?.id ?? "",
        subject: "Order",
        recipientHash: "meter-test",
        createdAt: now,
        acceptedAt: now,
      });
      // Committed: a reading started now would see the message, and the tally below adds it.
      second = reserveMonthlyRoom(h.mailDeps, input);
      second.then(() => {
        secondDoneInsideWrite = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      return 1;
    },
    (accepted) => accepted,
  );
  expect(secondDoneInsideWrite).toBe(false);
  const room = await (second as Promise<MonthlyRoom> | null);
  if (!room) throw new Error("the second reading was never asked for");
  expect(room).toMatchObject({ granted: 1, accepted: 1, heldByOthers: 0 });
  room.release(1);
  // And a later fresh reading agrees: the count is the database's.
  const third = await reserveMonthlyRoom(h.mailDeps, input);
  expect(third).toMatchObject({ granted: 1, accepted: 1 });
  third.release(1);
});
