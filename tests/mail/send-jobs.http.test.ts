import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { mailMessages, mailSendJobs, mailWebhookDeliveries } from "../../lib/db/schema";
import { METADATA_MESSAGE_ID_KEY } from "../../lib/mail/provider/simulator";
import { createHarness, describeResponse, type Harness, type Mail } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";
import { addRecipients, createJob, createNewsletter, newsletterBody, people, transientRows, waitForJob } from "../helpers/send-jobs";

let h: Harness;
let c: Awaited<ReturnType<typeof readyMailCustomer>>;
let templateId: string;

beforeAll(async () => {
  h = await createHarness({ postmarkWebhooks: true });
  c = await readyMailCustomer(h, "Newsletter Co");
  templateId = await createNewsletter(h, c.mailFull);
});
afterAll(async () => h.close());

const job = <T>(id: string, key = c.mailReporting) => h.call<T>("GET", `/mail/v1/send-jobs/${id}`, { key });

describe("a newsletter end to end", () => {
  test("draft → recipients (duplicates collapse, invalid kept) → start → completed; each message sent once, personalised; addresses deleted", async () => {
    const draft = await createJob(h, c.mailFull, { template_id: templateId, params: { campaign: "Spring", first_name: "friend" } });
    expect(draft).toMatchObject({
      status: "draft",
      mode: "live",
      template_id: templateId,
      params: { campaign: "Spring", first_name: "friend" },
      from: { email: "news@demo.example.com", name: "Demo GmbH" },
      reply_to: null,
      scheduled_at: null,
      recipients: { total: 0, accepted: 0, suppressed: 0, invalid: 0, failed: 0, unknown: 0, pending: 0 },
      batches: null,
    });

    const added = await addRecipients(h, c.mailFull, draft.id, [
      { email: "Ann Example <ann@example.com>", data: { first_name: "Ann", city: "Köln & Bonn" } },
      { email: "bob@example.com" },
      { email: "ANN@Example.com", data: { first_name: "Not used" } },
      { email: "not an address" },
    ]);
    expect(added.counts).toEqual({ received: 4, added: 3, duplicates: 1, invalid: 1 });
    expect(added.recipients.map((r: { email: string }) => r.email)).toEqual([
      "Ann Example <ann@example.com>",
      "bob@example.com",
      "ANN@Example.com",
      "not an address",
    ]);
    expect(added.recipients[2].message_id).toBe(added.recipients[0].message_id);
    expect(added.job).toMatchObject({ total: 3, pending: 2, invalid: 1 });
    const [ann, bob, , invalid] = added.recipients.map((r: { message_id: string }) => r.message_id);

    const started = await h.call<Mail["startSendJob"]>("POST", `/mail/v1/send-jobs/${draft.id}/start`, { key: c.mailFull });
    expect(started.status, describeResponse(started)).toBe(200);
    expect(started.json.data.status).toBe("running");
    await h.deps.queue.idle();

    const done = await job<Mail["getSendJob"]>(draft.id);
    expect(done.status, describeResponse(done)).toBe(200);
    expect(done.json.data).toMatchObject({
      status: "completed",
      recipients: { total: 3, accepted: 2, invalid: 1, pending: 0, failed: 0, unknown: 0, suppressed: 0 },
      batches: { size: 500, completed: 1, remaining: 0 },
    });
    expect(done.json.data.completed_at).not.toBeNull();

    const sent = c.simulator.messages({ metadataKey: "send_job_id", metadataValue: draft.id }).messages;
    expect(sent.map((m) => m.Metadata[METADATA_MESSAGE_ID_KEY]).sort()).toEqual([ann, bob].sort());
    for (const id of [ann, bob]) expect(c.simulator.metadataMessageIdCount(id)).toBe(1);
    const toAnn = sent.find((m) => m.Metadata.message_id === ann);
    expect(toAnn).toMatchObject({
      To: "Ann Example <ann@example.com>",
      Subject: "News for Ann",
      MessageStream: "broadcast",
      From: "Demo GmbH <news@demo.example.com>",
    });
    const annHtml = c.simulator.message(toAnn?.MessageID ?? "").HtmlBody ?? "";
    expect(annHtml).toContain("Hello Ann");
    expect(annHtml).toContain("Greetings to Köln &amp; Bonn");
    expect(annHtml).toContain("Campaign Spring.");
    expect(annHtml).toContain("{{{ pm:unsubscribe }}}");
    const toBob = sent.find((m) => m.Metadata.message_id === bob);
    expect(toBob?.Subject).toBe("News for friend");
    expect(c.simulator.message(toBob?.MessageID ?? "").HtmlBody).not.toContain("Greetings to");

    expect(await transientRows(h, draft.id)).toBe(0);
    const stored = await h.db.select().from(mailMessages).where(eq(mailMessages.sendJobId, draft.id));
    expect(stored).toHaveLength(3);
    expect(stored.every((m) => /^[0-9a-f]{64}$/.test(m.recipientHash))).toBe(true);
    expect(JSON.stringify(stored)).not.toContain("ann@example.com");

    const messages = await h.call<Mail["listSendJobMessages"]>("GET", `/mail/v1/send-jobs/${draft.id}/messages`, { key: c.mailReporting });
    expect(messages.status, describeResponse(messages)).toBe(200);
    expect(messages.json.data).toHaveLength(3);
    expect(messages.text).not.toContain("example.com");
    expect(messages.json.data.find((m: { message_id: string }) => m.message_id === invalid)).toMatchObject({
      status: "invalid",
      error: "The recipient address could not be parsed.",
    });

    const message = await h.call<Mail["getMessage"]>("GET", `/mail/v1/messages/${ann}`, { key: c.mailReporting });
    expect(message.json.data).toMatchObject({ kind: "newsletter", send_job_id: draft.id, subject: "News for {{first_name}}" });
  });
});

describe("preview and send agree", () => {
  test("the HTML a recipient receives is byte for byte the preview of the same stack with the same values", async () => {
    const { blocks } = newsletterBody();
    const preview = async (values: Record<string, string>) => {
      const r = await h.call<Mail["renderPreview"]>("POST", "/mail/v1/render/preview", { key: c.mailFull, body: { blocks, values } });
      expect(r.status, describeResponse(r)).toBe(200);
      return r.json.data.html as string;
    };
    const draft = await createJob(h, c.mailFull, { template_id: templateId, params: { campaign: "Equal" } });
    const added = await addRecipients(h, c.mailFull, draft.id, [
      { email: "eve@example.com", data: { first_name: "Eve <3", city: "Köln & Bonn" } },
      { email: "max@example.com" },
    ]);
    const [eve, max] = added.recipients.map((r: { message_id: string }) => r.message_id);
    expect((await h.call("POST", `/mail/v1/send-jobs/${draft.id}/start`, { key: c.mailFull })).status).toBe(200);
    await waitForJob(h, c.mailReporting, draft.id, "completed");
    const received = (messageId: string) => {
      const [sent] = c.simulator.messages({ metadataKey: METADATA_MESSAGE_ID_KEY, metadataValue: messageId }).messages;
      return c.simulator.message(sent?.MessageID ?? "").HtmlBody ?? "";
    };

    const toEve = received(eve);
    expect(toEve).toContain("Hello Eve &lt;3");
    expect(toEve).toBe(await preview({ first_name: "Eve <3", city: "Köln & Bonn", campaign: "Equal" }));
    // Without recipient data the conditional section is dropped in both, and the placeholder is empty.
    const toMax = received(max);
    expect(toMax).not.toContain("Greetings to");
    expect(toMax).toBe(await preview({ campaign: "Equal" }));
    expect(toMax).not.toBe(toEve);
  });
});

describe("statistics", () => {
  test("stats, hourly timeline and links come from stored events and keep counting after completion", async () => {
    const draft = await createJob(h, c.mailFull, { template_id: templateId, params: { campaign: "Stats" } });
    const added = await addRecipients(h, c.mailFull, draft.id, [...people(3), { email: "hardbounce@example.com" }]);
    const ids: string[] = added.recipients.map((r: { message_id: string }) => r.message_id);
    expect((await h.call("POST", `/mail/v1/send-jobs/${draft.id}/start`, { key: c.mailFull })).status).toBe(200);
    await h.deps.queue.idle();
    await c.simulator.whenIdle();
    await h.deps.queue.idle();

    const providerId = (messageId: string) => c.simulator.messages({ metadataKey: "message_id", metadataValue: messageId }).messages[0]?.MessageID ?? "";
    c.simulator.open(providerId(ids[0] ?? ""));
    // Postmark tells opens apart by their time; a second open comes a moment later.
    await new Promise((resolve) => setTimeout(resolve, 5));
    c.simulator.open(providerId(ids[0] ?? ""));
    c.simulator.open(providerId(ids[1] ?? ""));
    c.simulator.click(providerId(ids[0] ?? ""), { url: "https://shop.example.com/spring" });
    c.simulator.click(providerId(ids[1] ?? ""), { url: "https://shop.example.com/spring" });
    c.simulator.click(providerId(ids[1] ?? ""), { url: "https://shop.example.com/other" });
    await c.simulator.whenIdle();

    const detail = await job<Mail["getSendJob"]>(draft.id);
    expect(detail.status, describeResponse(detail)).toBe(200);
    expect(detail.json.data.status).toBe("completed");
    expect(detail.json.data.stats, describeResponse(detail)).toEqual({
      delivered: 3,
      bounces: 1,
      complaints: 0,
      opens: 3,
      unique_opens: 2,
      clicks: 3,
      unique_clicks: 2,
    });
    const timeline = detail.json.data.timeline as { hour: string; accepted: number; delivered: number; bounces: number; opens: number; clicks: number }[];
    expect(timeline.length).toBeGreaterThan(0);
    expect(timeline.every((entry) => entry.hour.endsWith(":00:00.000Z"))).toBe(true);
    const sum = (key: "accepted" | "delivered" | "bounces" | "opens" | "clicks") => timeline.reduce((n, entry) => n + entry[key], 0);
    expect({ accepted: sum("accepted"), delivered: sum("delivered"), bounces: sum("bounces"), opens: sum("opens"), clicks: sum("clicks") }).toEqual({
      accepted: 4,
      delivered: 3,
      bounces: 1,
      opens: 3,
      clicks: 3,
    });

    const links = await h.call<Mail["listSendJobLinks"]>("GET", `/mail/v1/send-jobs/${draft.id}/links`, { key: c.mailReporting });
    expect(links.status, describeResponse(links)).toBe(200);
    expect(links.json.data).toEqual([
      { url: "https://shop.example.com/spring", clicks: 2, unique_clicks: 2 },
      { url: "https://shop.example.com/other", clicks: 1, unique_clicks: 1 },
    ]);

    const bounced = await h.call<Mail["listSendJobMessages"]>("GET", `/mail/v1/send-jobs/${draft.id}/messages?status=bounced`, { key: c.mailReporting });
    expect(bounced.json.data.map((m: { message_id: string }) => m.message_id)).toEqual([ids[3]]);
    expect(bounced.json.data[0].bounce_type).toBe("HardBounce");
  });
});

describe("job reads", () => {
  test("list filters by status and pages with a cursor; another account sees nothing", async () => {
    const other = await readyMailCustomer(h, "Lister");
    const tpl = await createNewsletter(h, other.mailFull);
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await createJob(h, other.mailFull, { template_id: tpl }));
    const cancelled = await h.call("POST", `/mail/v1/send-jobs/${made[0]?.id}/cancel`, { key: other.mailFull });
    expect(cancelled.status, describeResponse(cancelled)).toBe(200);

    const page1 = await h.call<Mail["listSendJobs"]>("GET", "/mail/v1/send-jobs?limit=2", { key: other.mailReporting });
    expect(page1.status, describeResponse(page1)).toBe(200);
    expect(page1.json.paging.has_next).toBe(true);
    const page2 = await h.call<Mail["listSendJobs"]>("GET", `/mail/v1/send-jobs?limit=2&after=${page1.json.paging.after}`, { key: other.mailReporting });
    expect([...page1.json.data, ...page2.json.data].map((j: { id: string }) => j.id)).toEqual(made.map((j) => j.id).reverse());
    const drafts = await h.call<Mail["listSendJobs"]>("GET", "/mail/v1/send-jobs?status=draft", { key: other.mailReporting });
    expect(drafts.json.data.map((j: { id: string }) => j.id).sort()).toEqual([made[1]?.id, made[2]?.id].sort());

    expect((await h.call("GET", `/mail/v1/send-jobs/${made[1]?.id}`, { key: c.mailReporting })).status).toBe(404);
    expect((await h.call("GET", `/mail/v1/send-jobs/${made[1]?.id}/messages`, { key: c.mailReporting })).status).toBe(404);
    expect((await h.call("GET", `/mail/v1/send-jobs/${made[1]?.id}/links`, { key: c.mailReporting })).status).toBe(404);
    const [row] = await h.db
      .select()
      .from(mailSendJobs)
      .where(and(eq(mailSendJobs.id, made[0]?.id ?? ""), eq(mailSendJobs.customerId, other.id)));
    expect(row?.status).toBe("cancelled");
  });
});

describe("job.completed", () => {
  test("completing a job writes a job.completed delivery for each subscribed endpoint, with the spec's payload", async () => {
    // Its own deployment: the delivery to an unreachable endpoint schedules retries on this queue.
    const own = await createHarness();
    try {
      const w = await readyMailCustomer(own, "Webhook Co");
      const registered = await own.call("POST", "/mail/v1/webhooks", {
        key: w.mailFull,
        body: { url: "https://portal.example.com/hooks/mail", events: ["job.completed"] },
      });
      expect(registered.status, describeResponse(registered)).toBe(201);
      const draft = await createJob(own, w.mailFull, { template_id: await createNewsletter(own, w.mailFull) });
      await addRecipients(own, w.mailFull, draft.id, [...people(2), { email: "broken" }]);
      expect((await own.call("POST", `/mail/v1/send-jobs/${draft.id}/start`, { key: w.mailFull })).status).toBe(200);
      await waitForJob(own, w.mailReporting, draft.id, "completed");
      const deliveries = await own.db.select().from(mailWebhookDeliveries).where(eq(mailWebhookDeliveries.customerId, w.id));
      expect(deliveries).toHaveLength(1);
      const body = JSON.parse(deliveries[0]?.body ?? "{}");
      expect(body).toMatchObject({
        event: "job.completed",
        delivery_id: deliveries[0]?.id,
        send_job_id: draft.id,
        recipients: { total: 3, accepted: 2, suppressed: 0 },
      });
      expect(Date.parse(body.occurred_at)).not.toBeNaN();
    } finally {
      await own.close();
    }
  });
});
