import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ManualClock } from "../../lib/base/clock";
import { mailMessageEvents } from "../../lib/db/schema";
import { createHarness, describeResponse, type Harness, type Mail, type CronRun } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";
import { newsletterMessage, postEvent, postmarkEvent, sendTransactional } from "../helpers/postmark-events";

let h: Harness;
let c: Awaited<ReturnType<typeof readyMailCustomer>>;
const CRON_SECRET = "cron-secret-for-prune-tests-0123456789";
// Its own era: the prune deletes by age across the database, and CI runs the HTTP suite in parallel
// against one PostgreSQL database; nothing else lives in January 2001.
const clock = new ManualClock("2001-01-10T00:00:00.000Z");

beforeAll(async () => {
  h = await createHarness({ clock, env: { CRON_SECRET } });
  c = await readyMailCustomer(h, "Prune Co");
});
afterAll(async () => h.close());

const prune = () => h.call<CronRun>("GET", "/api/cron/mail-history-prune", { headers: { authorization: `Bearer ${CRON_SECRET}` } });
const stored = (messageId: string) => h.db.select().from(mailMessageEvents).where(eq(mailMessageEvents.messageId, messageId));

test("history older than 90 days is pruned by the daily cron; message state is kept and still merges later events", async () => {
  const transactional = await sendTransactional(h, c);
  await postEvent(h, postmarkEvent.delivery({ message_id: transactional }, "2001-01-10T00:00:01Z"));
  const newsletter = await newsletterMessage(h, c.id);
  await postEvent(h, postmarkEvent.delivery({ message_id: newsletter }, "2001-01-10T00:00:02Z", "broadcast"));
  await postEvent(h, postmarkEvent.open({ message_id: newsletter }, { at: "2001-01-10T08:00:00Z" }));
  await postEvent(h, postmarkEvent.click({ message_id: newsletter }, { at: "2001-01-10T08:01:00Z", url: "https://a.example.com/" }));
  await postEvent(h, postmarkEvent.open({ message_id: newsletter }, { at: "2001-03-20T08:00:00Z", firstOpen: false }));

  // 89 days later nothing is old enough.
  clock.set("2001-04-09T00:00:00.000Z");
  const early = await prune();
  expect(early.status, describeResponse(early)).toBe(200);
  expect(early.json.data.result.events).toBe(0);
  expect(await stored(newsletter)).toHaveLength(4);

  clock.set("2001-04-15T00:00:00.000Z");
  const r = await prune();
  expect(r.status, describeResponse(r)).toBe(200);
  expect(r.json.data).toMatchObject({ job: "mail-history-prune", result: { events: 5 } });
  expect((await stored(transactional)).map((e) => e.type)).toEqual([]);
  expect((await stored(newsletter)).map((e) => e.occurredAt.toISOString())).toEqual(["2001-03-20T08:00:00.000Z"]);

  const t = await h.call<Mail["getMessage"]>("GET", `/mail/v1/messages/${transactional}`, { key: c.mailReporting });
  expect(t.json.data, describeResponse(t)).toMatchObject({ status: "delivered", delivered_at: "2001-01-10T00:00:01.000Z", events: [] });
  const n = await h.call<Mail["getMessage"]>("GET", `/mail/v1/messages/${newsletter}`, { key: c.mailReporting });
  expect(n.json.data).toMatchObject({ status: "delivered", first_opened_at: "2001-01-10T08:00:00.000Z", first_clicked_at: "2001-01-10T08:01:00.000Z" });
  expect(n.json.data.events.map((e: { type: string }) => e.type)).toEqual(["opened"]);

  // A late click (Postmark posts one per link) merges into the kept state: the first click stays first.
  await postEvent(h, postmarkEvent.click({ message_id: newsletter }, { at: "2001-04-15T09:00:00Z", url: "https://b.example.com/" }));
  const later = await h.call<Mail["getMessage"]>("GET", `/mail/v1/messages/${newsletter}`, { key: c.mailReporting });
  expect(later.json.data).toMatchObject({ status: "delivered", first_clicked_at: "2001-01-10T08:01:00.000Z" });

  expect((await prune()).json.data.result.events).toBe(0);
  expect((await h.call("GET", "/api/cron/mail-history-prune")).status).toBe(401);
});
