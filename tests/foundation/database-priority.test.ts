import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { openDatabase, type DatabaseHandle } from "../../lib/db/client";

/*
 * The embedded database's priority gate (lib/db/priority.ts), on a real PGlite: a request's query goes
 * before the background statements queued ahead of it (a send job's batches), and a steady stream of
 * foreground queries does not starve background work.
 */

let handle: DatabaseHandle;
beforeAll(async () => {
  handle = await openDatabase({ migrate: false });
});
afterAll(async () => handle.close());

/** A statement that keeps PGlite (and so the event loop) busy for about `ms`. */
const busy = (ms: number) => sql`select pg_sleep(${ms / 1000})`;

test("a foreground query issued while background statements wait goes before them", async () => {
  const order: string[] = [];
  const background = (name: string) =>
    handle.priority.asBackgroundWork(async () => {
      await handle.db.execute(busy(30));
      order.push(name);
    });
  let foreground: Promise<void> = Promise.resolve();
  const first = background("b1").then(() => {
    // b2 and b3 have been waiting since before b1 ran; this query arrives after them.
    foreground = handle.db.execute(sql`select 1`).then(() => {
      order.push("f");
    });
  });
  await Promise.all([first, background("b2"), background("b3")]);
  await foreground;
  expect(order).toEqual(["b1", "f", "b2", "b3"]);
});

test("background work is not starved by a steady stream of foreground queries", async () => {
  const order: string[] = [];
  const background = handle.priority.asBackgroundWork(async () => {
    await handle.db.execute(sql`select 2`);
    order.push("b");
  });
  // Each foreground query is issued the moment the previous one is answered, so one is always waiting.
  for (let i = 0; i < 40; i++) {
    await handle.db.execute(sql`select 1`);
    order.push(`f${i}`);
  }
  await background;
  expect(order.indexOf("b")).toBeGreaterThan(-1);
  expect(order.indexOf("b")).toBeLessThan(40);
});
