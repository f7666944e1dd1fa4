import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, test, vi } from "vitest";
import { mailMessages, mailTemplates } from "../../lib/db/schema";
import { asBackgroundWork, asPriorityRequest } from "../../lib/db/priority";
import { DEMO_TRANSACTIONAL_TEMPLATE } from "../../lib/mail/seed";
import { createHarness, type Harness } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";

/*
 * Priority requests (lib/db/priority.ts): while one runs, background database work (a send job's batches)
 * starts no new statement or transaction, for at most 250 ms a pause; everything else goes on. On the
 * harness's database: PGlite here, the PostgreSQL server's pool in CI's PostgreSQL run (both drivers' gates).
 * (A drizzle query runs when awaited, so each background statement is awaited inside `asBackgroundWork`.)
 */

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

/** Resolves when `release` is called: a priority request held open by the test. */
function held(): { done: Promise<void>; release: () => void } {
  let release: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (release = resolve));
  return { done, release };
}

test("a background statement and a background transaction wait while a priority request runs; foreground queries do not", async () => {
  const request = held();
  const running = asPriorityRequest(async () => {
    // The request's own queries are not held up.
    await h.db.execute(sql`select 1`);
    await request.done;
  });
  const finished: string[] = [];
  const statement = asBackgroundWork(async () => h.db.execute(sql`select 2`)).then(() => finished.push("statement"));
  const transaction = asBackgroundWork(async () => h.db.transaction(async (tx) => tx.execute(sql`select 3`))).then(() => finished.push("transaction"));
  // Another request's queries (not background) go on meanwhile.
  await h.db.execute(sql`select 4`);
  await h.db.execute(sql`select 5`);
  expect(finished).toEqual([]);
  request.release();
  await running;
  await Promise.all([statement, transaction]);
  expect(finished.sort()).toEqual(["statement", "transaction"]);
});

test("a pause ends after 250 ms even while the priority request still runs (background work is never starved)", async () => {
  const request = held();
  const running = asPriorityRequest(() => request.done);
  const started = performance.now();
  let after = -1;
  const statement = asBackgroundWork(async () => h.db.execute(sql`select 1`)).then(() => (after = performance.now() - started));
  await vi.waitFor(() => expect(after).toBeGreaterThanOrEqual(0), { timeout: 30_000, interval: 20 });
  expect(after).toBeGreaterThanOrEqual(240);
  request.release();
  await Promise.all([running, statement]);
});

test("the mail app serves POST /v1/templates/{id}/send as a priority request: a batch's statement waits for it", async () => {
  const c = await readyMailCustomer(h, "Priority sender");
  const [order] = await h.db
    .select({ id: mailTemplates.id })
    .from(mailTemplates)
    .where(and(eq(mailTemplates.customerId, c.id), eq(mailTemplates.name, DEMO_TRANSACTIONAL_TEMPLATE)));
  // A slow provider keeps the send open for 400 ms, longer than one pause (250 ms).
  c.simulator.setLatency(400);
  try {
    const sent = h.call("POST", `/mail/v1/templates/${order?.id}/send`, {
      key: c.mailFull,
      body: { to: "buyer@example.com", params: { order_number: "A-1", order_url: "https://shop.example.com/o/1" } },
    });
    // Once the send's message row exists, the request is at the provider.
    await vi.waitFor(
      async () => expect(await h.db.select({ id: mailMessages.id }).from(mailMessages).where(eq(mailMessages.customerId, c.id))).toHaveLength(1),
      {
        timeout: 30_000,
        interval: 10,
      },
    );
    const started = performance.now();
    let answered = false;
    void sent.then(() => (answered = true));
    await asBackgroundWork(async () => h.db.execute(sql`select 1`));
    const waited = performance.now() - started;
    // Paused: until the send answered, or the whole 250 ms while it was still at the provider.
    expect(answered || waited >= 240, `waited ${waited.toFixed(0)} ms, send answered: ${answered}`).toBe(true);
    expect((await sent).status).toBe(200);
  } finally {
    c.simulator.setLatency(0);
  }
});
