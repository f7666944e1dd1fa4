import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { ManualClock } from "../../lib/base/clock";
import { verifyWebhook } from "../../lib/core/webhook-signature";
import { mailMessageContents, mailTemplates } from "../../lib/db/schema";
import { DEMO_TRANSACTIONAL_TEMPLATE } from "../../lib/mail/seed";
import { createHarness, describeResponse, type Admin, type Ads, type Harness, type Mail } from "../helpers/harness";
import { startHttpsReceiver } from "../helpers/https-receiver";
import { readyMailCustomer } from "../helpers/mail";
import { addRecipients, createJob, createNewsletter, waitForJob } from "../helpers/send-jobs";

/**
 * The whole story of a mail for the operator (what a message carried, the job's name) and test events to
 * a webhook endpoint, through the customer and admin APIs against the Postmark simulator and an https
 * receiver on loopback.
 */
const CRON_SECRET = "cron-secret-for-message-story-tests-0123456789";
const clock = new ManualClock("2001-05-02T09:00:00.000Z");
let receiver: Awaited<ReturnType<typeof startHttpsReceiver>>;
let h: Harness;
let c: Awaited<ReturnType<typeof readyMailCustomer>>;

beforeAll(async () => {
  receiver = await startHttpsReceiver("story.test");
  h = await createHarness({ clock, env: { ALLOW_LOOPBACK_OUTBOUND: "true", OUTBOUND_TRUSTED_CA: receiver.ca, CRON_SECRET } });
  c = await readyMailCustomer(h, "Story Co");
});
afterAll(async () => {
  await h.close();
  await receiver.close();
});

type Content = Admin["getCustomerMessageContent"];

describe("a message's content", () => {
  test("transactional: the HTML as sent with its text part and the template's version; the address is not kept; another customer's is 404; gone after 45 days", async () => {
    const [template] = await h.db
      .select()
      .from(mailTemplates)
      .where(and(eq(mailTemplates.customerId, c.id), eq(mailTemplates.name, DEMO_TRANSACTIONAL_TEMPLATE)));
    const to = "Anna.Story@Example.com";
    const sent = await h.call<Mail["sendTemplate"]>("POST", `/mail/v1/templates/${template?.id}/send`, {
      key: c.mailFull,
      body: { to, params: { order_number: "A-77", order_url: `https://shop.example.com/o/A-77?email=${encodeURIComponent(to)}` } },
    });
    expect(sent.status, describeResponse(sent)).toBe(200);
    const messageId = sent.json.data.message_id;
    const r = await h.admin<Content>("GET", `/v1/customers/${c.id}/mail/messages/${messageId}/content`);
    expect(r.status, describeResponse(r)).toBe(200);
    expect(r.json.data).toMatchObject({
      message_id: messageId,
      source: "as_sent",
      template: { id: template?.id, name: DEMO_TRANSACTIONAL_TEMPLATE, version_sent: template?.version, version_now: template?.version },
      send_job: null,
    });
    const postmark = c.simulator.messages().messages.find((m) => m.Metadata.message_id === messageId);
    expect(postmark).toBeDefined();
    expect(r.json.data.html).toContain("A-77");
    expect(r.json.data.html?.toLowerCase()).not.toContain("anna.story");
    expect(r.json.data.html).toContain("[recipient address]");
    // The text part is the one Postmark received, kept as sent (the address replaced likewise).
    const received = c.simulator.message(postmark?.MessageID ?? "").TextBody ?? "";
    expect(received).toContain("A-77");
    expect(received).not.toContain("<");
    expect(received.toLowerCase()).toContain("anna.story");
    expect(r.json.data.text_source).toBe("as_sent");
    const forms = [to, encodeURIComponent(to)].map((form) => form.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|");
    expect(r.json.data.text).toBe(received.replace(new RegExp(forms, "gi"), "[recipient address]"));
    expect(r.json.data.text?.toLowerCase()).not.toContain("anna.story");

    // Mail sent before text parts were kept shows the HTML as text, and says so.
    await h.db.update(mailMessageContents).set({ text: null }).where(eq(mailMessageContents.messageId, messageId));
    const older = await h.admin<Content>("GET", `/v1/customers/${c.id}/mail/messages/${messageId}/content`);
    expect(older.json.data).toMatchObject({ source: "as_sent", text_source: "derived_from_html" });
    expect(older.json.data.text).toContain("A-77");
    expect(older.json.data.note).toMatch(/derived from the HTML/);

    const stranger = await h.customer("Story stranger");
    expect((await h.admin("GET", `/v1/customers/${stranger.id}/mail/messages/${messageId}/content`)).status).toBe(404);

    clock.advance(46 * 86_400_000);
    const pruned = await h.call("GET", "/api/cron/mail-history-prune", { headers: { authorization: `Bearer ${CRON_SECRET}` } });
    expect(pruned.status, describeResponse(pruned)).toBe(200);
    const later = await h.admin<Content>("GET", `/v1/customers/${c.id}/mail/messages/${messageId}/content`);
    expect(later.json.data).toMatchObject({ source: "expired", html: null, text: null, text_source: null });
  });

  test("newsletter: the job's template with the recipient's values as placeholders; the job has a name (given or the template's and the date)", async () => {
    const templateId = await createNewsletter(h, c.mailFull, "Story news");
    const named = await createJob(h, c.mailFull, { template_id: templateId, name: "Loyal readers", params: { campaign: "C-9" } });
    expect(named).toMatchObject({ name: "Loyal readers", subject: "News for {{first_name}}" });
    const unnamed = await createJob(h, c.mailFull, { template_id: templateId });
    expect(unnamed.name).toBe(`Story news · ${clock.now().toISOString().slice(0, 10)}`);
    const blank = await h.call("POST", "/mail/v1/send-jobs", { key: c.mailFull, body: { template_id: templateId, name: "" } });
    expect(blank.status, describeResponse(blank)).toBe(422);

    const added = await addRecipients(h, c.mailFull, named.id, [{ email: "reader@example.com", data: { first_name: "Rita" } }]);
    const messageId = added.recipients[0]?.message_id;
    expect((await h.call("POST", `/mail/v1/send-jobs/${named.id}/start`, { key: c.mailFull })).status).toBe(200);
    await waitForJob(h, c.mailFull, named.id, "completed");

    const r = await h.admin<Content>("GET", `/v1/customers/${c.id}/mail/messages/${messageId}/content`);
    expect(r.status, describeResponse(r)).toBe(200);
    expect(r.json.data).toMatchObject({ source: "template_placeholders", send_job: { id: named.id, name: "Loyal readers" }, template: { version_sent: 1 } });
    expect(r.json.data.html).toContain("{{first_name}}");
    expect(r.json.data.html).toContain("C-9");
    expect(r.json.data.html).not.toContain("Rita");
    expect(r.json.data.note).toMatch(/not kept/);
    // Newsletters go out as HTML only: the text shown is the HTML as text, labelled so.
    expect(r.json.data.text_source).toBe("derived_from_html");
    expect(r.json.data.text).toContain("C-9");

    const list = await h.admin<Admin["listCustomerSendJobs"]>("GET", `/v1/customers/${c.id}/mail/send-jobs`);
    expect(list.json.data.map((j) => j.name)).toContain("Loyal readers");
    const found = await h.admin<Admin["search"]>("GET", "/v1/search?q=Loyal%20readers");
    expect(found.status, describeResponse(found)).toBe(200);
    expect(JSON.stringify(found.json.data)).toContain(named.id);
  });
});

describe.each([
  { service: "mail" as const, key: () => c.mailFull, reporting: () => c.mailReporting, register: { events: ["job.completed"] } },
  { service: "ads" as const, key: () => c.adsFull, reporting: () => c.adsReporting, register: {} },
])("$service: a test event", ({ service, key, reporting, register }) => {
  test("arrives signed at the endpoint, once per Idempotency-Key, and shows in the delivery log (customer and operator alike)", async () => {
    const base = `/${service}/v1/webhooks`;
    const hook = await h.call<Mail["createWebhook"] | Ads["createAdsWebhook"]>("POST", base, {
      key: key(),
      body: { url: `${receiver.origin}/${service}/test`, ...register },
    });
    expect(hook.status, describeResponse(hook)).toBe(201);
    const webhookId = hook.json.data.id;
    const send = () =>
      h.call<Mail["sendWebhookTestEvent"]>("POST", `${base}/${webhookId}/test`, { key: key(), headers: { "idempotency-key": `test-${service}` } });
    const first = await send();
    expect(first.status, describeResponse(first)).toBe(202);
    expect(first.json.data).toMatchObject({ event: "webhook.test", status: "pending" });
    const arrived = await vi.waitFor(
      () => {
        const request = receiver.received.find((r) => r.headers["x-service-delivery"] === first.json.data.id);
        if (!request) throw new Error("not yet");
        return request;
      },
      { timeout: 30_000, interval: 20 },
    );
    expect(arrived.headers["x-service-event"]).toBe("webhook.test");
    const body = JSON.parse(arrived.body);
    if (service === "mail") expect(body).toMatchObject({ event: "webhook.test", delivery_id: first.json.data.id, webhook_id: webhookId, test: true });
    else expect(body).toMatchObject({ id: first.json.data.id, type: "webhook.test", data: { webhook_id: webhookId, test: true } });
    const signature = String(arrived.headers["x-service-signature"]);
    expect(verifyWebhook(hook.json.data.signing_secret, arrived.body, signature, { nowSeconds: clock.now().getTime() / 1000 })).toEqual({ ok: true });
    const replay = await send();
    expect(replay.headers.get("idempotent-replayed")).toBe("true");

    const log = await vi.waitFor(
      async () => {
        const r = await h.call<Mail["listWebhookDeliveries"]>("GET", `${base}/${webhookId}/deliveries?event=webhook.test`, { key: key() });
        expect(r.json.data[0]?.status).toBe("delivered");
        return r.json.data;
      },
      { timeout: 30_000, interval: 20 },
    );
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ status_code: 200, response_excerpt: '{"ok":true}', request: { body: arrived.body } });
    expect(log[0]?.attempt_history).toEqual([{ attempt: 1, at: expect.any(String), status_code: 200, latency_ms: expect.any(Number), error: null }]);
    const operator = await h.admin<Admin["listCustomerMailWebhookDeliveries"]>("GET", `/v1/customers/${c.id}/${service}/webhooks/${webhookId}/deliveries`);
    expect(operator.json.data).toEqual(log);

    const viaAdmin = await h.admin<Admin["sendCustomerMailWebhookTestEvent"]>("POST", `/v1/customers/${c.id}/${service}/webhooks/${webhookId}/test`);
    expect(viaAdmin.status, describeResponse(viaAdmin)).toBe(202);
    expect(viaAdmin.json.data.event).toBe("webhook.test");

    const stranger = await h.customer(`${service} test stranger`);
    expect((await h.call("POST", `${base}/${webhookId}/test`, { key: service === "mail" ? stranger.mailFull : stranger.adsFull })).status).toBe(404);
    expect((await h.admin("POST", `/v1/customers/${stranger.id}/${service}/webhooks/${webhookId}/test`)).status).toBe(404);
    expect((await h.call("POST", `${base}/${webhookId}/test`, { key: reporting() })).status).toBe(403);
  });
});
