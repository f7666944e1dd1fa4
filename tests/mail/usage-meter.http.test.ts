import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { sha256Hex } from "../../lib/core/secrets";
import { mailMessages, mailTemplates } from "../../lib/db/schema";
import { DEMO_TRANSACTIONAL_TEMPLATE } from "../../lib/mail/seed";
import { type MonthlyRoom, reserveMonthlyRoom } from "../../lib/mail/usage/meter";
import { createHarness, type Harness } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";

/*
 * The monthly meter's reading never counts a send twice and never waits for a send's commit: a send commits
 * its accepted message and then adds it to the process's tally; a reading of the month's count asked for
 * between the two would hold the message and the tally would add it again (seen as one recipient too few
 * for a job next to concurrent transactional mail). A reading leaves out the messages of the commits under
 * way (their tallies count them), so it answers at once: a transactional send never waits behind a batch's
 * commit of 500 results. Here a fresh reading is asked for while a send's commit is done but not yet tallied.
 */

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

/** A ready customer, and a function that stores one accepted live message of its transactional template. */
async function meterCustomer(name: string) {
  const c = await readyMailCustomer(h, name);
  const [template] = await h.db
    .select({ id: mailTemplates.id })
    .from(mailTemplates)
    .where(and(eq(mailTemplates.customerId, c.id), eq(mailTemplates.name, DEMO_TRANSACTIONAL_TEMPLATE)));
  const now = h.clock.now();
  const storeAccepted = (id: string) =>
    h.db.insert(mailMessages).values({
      id,
      customerId: c.id,
      kind: "transactional",
      mode: "live",
      status: "accepted",
      templateId: template?.id ?? "",
      subject: "Order",
      recipientHash: sha256Hex(`meter-${id}`),
      createdAt: now,
      acceptedAt: now,
    });
  return { input: { customerId: c.id, now, limit: 10, want: 1, fresh: true }, storeAccepted };
}

test("a reading asked for between a send's commit and its tally answers without waiting and counts the send once", async () => {
  const { input, storeAccepted } = await meterCustomer("Meter");

  const first = await reserveMonthlyRoom(h.mailDeps, input);
  expect(first).toMatchObject({ granted: 1, accepted: 0 });
  const messageId = crypto.randomUUID();
  let second: MonthlyRoom | "waited" | null = null;
  await first.settle(
    [messageId],
    async () => {
      await storeAccepted(messageId);
      // Committed: the count sees the message, and the tally below adds it. The reading answers while the
      // commit is still under way (a reading that waited for it would never answer here).
      let timer: NodeJS.Timeout | undefined;
      second = await Promise.race([
        reserveMonthlyRoom(h.mailDeps, input),
        new Promise<"waited">((resolve) => {
          timer = setTimeout(() => resolve("waited"), 10_000);
        }),
      ]);
      clearTimeout(timer);
      return 1;
    },
    (accepted: number) => accepted,
  );
  const room = second as MonthlyRoom | "waited" | null;
  if (room === null || room === "waited") throw new Error(`the reading ${room === null ? "was never asked for" : "waited for the commit"}`);
  // The message under way is left out of the count; its room is still held by the first send.
  expect(room).toMatchObject({ granted: 1, accepted: 0, heldByOthers: 1 });
  room.release(1);
  // Tallied once: a reading from the tally (not fresh) and a fresh one from the database agree.
  const cached = await reserveMonthlyRoom(h.mailDeps, { ...input, fresh: false });
  expect(cached).toMatchObject({ granted: 1, accepted: 1, heldByOthers: 0 });
  cached.release(1);
  const third = await reserveMonthlyRoom(h.mailDeps, input);
  expect(third).toMatchObject({ granted: 1, accepted: 1 });
  third.release(1);
});

test("a commit tallied while a reading runs is kept by that reading, once", async () => {
  const { input, storeAccepted } = await meterCustomer("Meter tally");
  const first = await reserveMonthlyRoom(h.mailDeps, input);
  const messageId = crypto.randomUUID();
  let reading: Promise<MonthlyRoom> | null = null;
  await first.settle(
    [messageId],
    async () => {
      await storeAccepted(messageId);
      // The reading's count is on its way (leaving this message out) when the commit returns and is tallied.
      reading = reserveMonthlyRoom(h.mailDeps, input);
      return 1;
    },
    (accepted: number) => accepted,
  );
  const room = await (reading as Promise<MonthlyRoom> | null);
  if (!room) throw new Error("the reading was never asked for");
  expect(room).toMatchObject({ granted: 1, accepted: 1 });
  room.release(1);
  const again = await reserveMonthlyRoom(h.mailDeps, input);
  expect(again).toMatchObject({ granted: 1, accepted: 1, heldByOthers: 0 });
  again.release(1);
});
