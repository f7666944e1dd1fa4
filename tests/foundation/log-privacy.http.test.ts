import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { mailTemplates } from "../../lib/db/schema";
import { simulatorTestAddress } from "../../lib/mail/provider/simulator";
import { DEMO_TRANSACTIONAL_TEMPLATE } from "../../lib/mail/seed";
import { createHarness, describeResponse, type Harness, type Mail } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";
import { postEvent, postmarkEvent } from "../helpers/postmark-events";
import { addRecipients, createJob, createNewsletter, waitForJob } from "../helpers/send-jobs";

/**
 * The log of a walk-through at debug level carries none of the addresses, names and keys it used: sends
 * that succeed, fail at the provider (whose texts name the address), and are lost; provider events; a
 * send job with personal data; invalid keys; an unhandled failed query. The logger redacts; nothing relies
 * on call sites being careful.
 */

let h: Harness;
let c: Awaited<ReturnType<typeof readyMailCustomer>>;

beforeAll(async () => {
  h = await createHarness({ postmarkWebhooks: true });
  c = await readyMailCustomer(h, "Privacy Co");
});
afterAll(async () => h.close());

const NAME = "Zebulon Quixotebright";
const used: string[] = [];

async function transactional<T = Mail["sendTemplate"]>(to: string) {
  used.push(to);
  const [template] = await h.db
    .select()
    .from(mailTemplates)
    .where(and(eq(mailTemplates.customerId, c.id), eq(mailTemplates.name, DEMO_TRANSACTIONAL_TEMPLATE)));
  return h.call<T>("POST", `/mail/v1/templates/${template?.id}/send`, {
    key: c.mailFull,
    body: { to, params: { order_number: "P-1", order_url: "https://shop.example.com/o/P-1", customer_name: NAME } },
  });
}

test("a walk-through's debug log holds no address, name, key or query value it used", async () => {
  used.push(NAME);
  expect((await transactional("zebulon.private@example.com")).status).toBe(200);
  // The provider refuses the address in a text that names it.
  const invalid = await transactional("zebulon..broken@@example");
  expect(invalid.status, describeResponse(invalid)).not.toBe(500);
  // The provider's answer is lost: an outcome in doubt, logged and reconciled.
  c.simulator.setFaults({ mode: "error500", count: 1 });
  await transactional("lost.zebulon@example.com");
  // A hard bounce and its suppression, through the receiver.
  const bounced = simulatorTestAddress("HardBounce", "privacy");
  const sent = await transactional(bounced);
  await postEvent(h, postmarkEvent.bounce({ message_id: sent.json.data.message_id }, { at: new Date(Date.now() + 60_000).toISOString(), email: bounced }));

  // A send job whose recipients carry names.
  const templateId = await createNewsletter(h, c.mailFull);
  const job = await createJob(h, c.mailFull, { template_id: templateId, params: { campaign: "Privacy" } });
  const recipients = [0, 1, 2].map((i) => ({ email: `privacy-reader-${i}@example.org`, data: { first_name: `${NAME} ${i}` } }));
  used.push(...recipients.map((r) => r.email));
  await addRecipients(h, c.mailFull, job.id, recipients);
  expect((await h.call("POST", `/mail/v1/send-jobs/${job.id}/start`, { key: c.mailFull })).status).toBe(200);
  await waitForJob(h, c.mailReporting, job.id, "completed");
  // (Not the queue's idle: the lost message's reconciliation waits, delayed, for its grace period.)
  await c.simulator.whenIdle();

  // Invalid and foreign keys, and a failed query whose values are personal data.
  expect((await h.call("GET", "/mail/v1/templates", { key: `${c.mailFull.slice(0, -4)}AAAA` })).status).toBe(401);
  const failed = await h.db.execute(sql`select ${"zebulon.query@example.com"}::int`).catch((error: unknown) => error);
  expect(String(failed)).toContain("zebulon.query@example.com");
  h.deps.logger.error("query failed", { error: failed });
  h.deps.logger.error("query failed as text", { error: String(failed), stack: (failed as Error).stack });
  used.push("zebulon.query@example.com", c.mailFull, c.mailReporting, c.serverToken);

  const log = h.logLines.join("\n");
  expect(log).toContain("Failed query");
  expect(log.length).toBeGreaterThan(1000);
  for (const value of used) expect(log, value).not.toContain(value);
  expect(log).not.toContain("Zebulon");
  expect(log.toLowerCase()).not.toContain("zebulon");
}, 120_000);
