import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { mailMessages, mailSuppressions, mailTemplates } from "../../lib/db/schema";
import { demoBlocks } from "../../lib/mail/blocks/library";
import { ManualClock } from "../../lib/base/clock";
import { reconcileMessage } from "../../lib/mail/send-jobs/reconcile";
import { DEMO_TRANSACTIONAL_TEMPLATE } from "../../lib/mail/seed";
import { createHarness, describeResponse, type Harness, type Mail, type ErrorEnvelope, type MissingDetails, type ErrorDetail } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";

let h: Harness;
let c: Awaited<ReturnType<typeof readyMailCustomer>>;
let transactionalId: string;
const block = (slug: string) => demoBlocks.find((b) => b.slug === slug)?.id ?? "";

async function templateIdOf(customerId: string): Promise<string> {
  const [row] = await h.db
    .select()
    .from(mailTemplates)
    .where(and(eq(mailTemplates.customerId, customerId), eq(mailTemplates.name, DEMO_TRANSACTIONAL_TEMPLATE)));
  if (!row) throw new Error("no seeded template");
  return row.id;
}

const params = { order_number: "A-1", order_url: "https://shop.example.com/o/A-1" };

beforeAll(async () => {
  h = await createHarness();
  c = await readyMailCustomer(h, "Templates Co");
  transactionalId = await templateIdOf(c.id);
});
afterAll(async () => h.close());

describe("templates", () => {
  const body = () => ({
    name: "Spring",
    subject: "News for {{first_name}}",
    blocks: [
      { block_id: block("heading"), values: { title: "Hi {{first_name}}", subtitle: "" } },
      { block_id: block("text"), values: { body: "Spring is here." } },
    ],
  });

  test("create from a builder stack, list with contracts, get with stack, update, delete", async () => {
    const created = await h.call<Mail["createTemplate"]>("POST", "/mail/v1/templates", { key: c.mailFull, body: body() });
    expect(created.status, describeResponse(created)).toBe(201);
    expect(created.json.data).toMatchObject({ name: "Spring", kind: "newsletter", origin: "customer", status: "active", params: [], version: 1 });
    const id = created.json.data.id;

    const list = await h.call<Mail["listTemplates"]>("GET", "/mail/v1/templates?limit=1", { key: c.mailReporting });
    expect(list.status, describeResponse(list)).toBe(200);
    expect(list.json.data).toHaveLength(1);
    expect(list.json.paging.has_next).toBe(true);
    const page2 = await h.call<Mail["listTemplates"]>("GET", `/mail/v1/templates?limit=10&after=${list.json.paging.after}`, { key: c.mailReporting });
    const all = [...list.json.data, ...page2.json.data];
    expect(all.map((t) => t.id)).toContain(transactionalId);
    expect(all.find((t) => t.id === transactionalId)?.params.map((p) => p.name)).toEqual(["order_number", "customer_name", "order_url"]);

    const got = await h.call<Mail["getTemplate"]>("GET", `/mail/v1/templates/${id}`, { key: c.mailReporting });
    expect(got.json.data.blocks).toEqual(body().blocks);

    const put = await h.call<Mail["updateTemplate"]>("PUT", `/mail/v1/templates/${id}`, { key: c.mailFull, body: { name: "Spring v2" } });
    expect(put.status, describeResponse(put)).toBe(200);
    expect(put.json.data).toMatchObject({ name: "Spring v2", subject: "News for {{first_name}}", version: 2 });

    const del = await h.call("DELETE", `/mail/v1/templates/${id}`, { key: c.mailFull });
    expect(del.status, describeResponse(del)).toBe(200);
    expect((await h.call("GET", `/mail/v1/templates/${id}`, { key: c.mailReporting })).status).toBe(404);
  });

  test("a footer block in the stack is 422; a block not enabled is 403; unknown fields on PUT are 422", async () => {
    const withFooter = await h.call<ErrorEnvelope<ErrorDetail[]>>("POST", "/mail/v1/templates", {
      key: c.mailFull,
      body: { ...body(), blocks: [...body().blocks, { block_id: block("newsletter-footer"), values: {} }] },
    });
    expect(withFooter.status, describeResponse(withFooter)).toBe(422);
    expect(withFooter.json.error.details[0].path).toBe("blocks.2.block_id");
    const other = await h.customer();
    expect((await h.call("POST", "/mail/v1/templates", { key: other.mailFull, body: body() })).status).toBe(403);
    const created = await h.call<Mail["createTemplate"]>("POST", "/mail/v1/templates", { key: c.mailFull, body: body() });
    expect((await h.call("PUT", `/mail/v1/templates/${created.json.data.id}`, { key: c.mailFull, body: { kind: "transactional" } })).status).toBe(422);
  });

  test("admin-origin templates cannot be changed or deleted (403); another account's template is 404", async () => {
    expect((await h.call("PUT", `/mail/v1/templates/${transactionalId}`, { key: c.mailFull, body: { name: "x" } })).status).toBe(403);
    expect((await h.call("DELETE", `/mail/v1/templates/${transactionalId}`, { key: c.mailFull })).status).toBe(403);
    const other = await h.customer();
    expect((await h.call("GET", `/mail/v1/templates/${transactionalId}`, { key: other.mailReporting })).status).toBe(404);
    expect((await h.call("POST", `/mail/v1/templates/${transactionalId}/send`, { key: other.mailFull, body: { to: "a@example.com", params } })).status).toBe(
      404,
    );
  });

  test("Idempotency-Key: a repeated create returns the same template", async () => {
    const first = await h.call<Mail["createTemplate"]>("POST", "/mail/v1/templates", {
      key: c.mailFull,
      body: body(),
      headers: { "idempotency-key": "tpl-1" },
    });
    const again = await h.call<Mail["createTemplate"]>("POST", "/mail/v1/templates", {
      key: c.mailFull,
      body: body(),
      headers: { "idempotency-key": "tpl-1" },
    });
    expect(again.json.data.id).toBe(first.json.data.id);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
  });
});

describe("POST /v1/templates/{id}/send", () => {
  test("accepted: sent once through Postmark on the transactional stream with the message id in Metadata", async () => {
    const r = await h.call<Mail["sendTemplate"]>("POST", `/mail/v1/templates/${transactionalId}/send`, {
      key: c.mailFull,
      body: { to: "Jane Doe <jane@example.com>", params: { ...params, customer_name: "Jane" } },
    });
    expect(r.status, describeResponse(r)).toBe(200);
    expect(r.json.data.status).toBe("accepted");
    const id = r.json.data.message_id;
    const sent = c.simulator.messages({}).messages.filter((m) => m.Metadata.message_id === id);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ To: "Jane Doe <jane@example.com>", MessageStream: "outbound", Subject: "Your order A-1" });
    const detail = c.simulator.message(sent[0]?.MessageID ?? "");
    expect(detail.HtmlBody).toContain("Thank you, Jane!");
    expect(detail.HtmlBody).toContain("https://shop.example.com/o/A-1");
    // A text part beside the HTML: the same words and links, no markup.
    expect(detail.TextBody).toContain("Thank you, Jane!");
    expect(detail.TextBody).toContain("https://shop.example.com/o/A-1");
    expect(detail.TextBody).not.toMatch(/<[a-z]/i);

    const message = await h.call<Mail["getMessage"]>("GET", `/mail/v1/messages/${id}`, { key: c.mailReporting });
    expect(message.status, describeResponse(message)).toBe(200);
    expect(message.json.data).toMatchObject({
      id,
      kind: "transactional",
      mode: "live",
      status: "accepted",
      template_id: transactionalId,
      send_job_id: null,
      subject: "Your order A-1",
      bounce_type: null,
      error: null,
    });
    for (const field of ["delivered_at", "first_opened_at", "first_clicked_at", "bounced_at", "complained_at"]) expect(message.json.data).toHaveProperty(field);
    expect(message.text).not.toContain("jane@example.com");
    const other = await h.customer();
    expect((await h.call("GET", `/mail/v1/messages/${id}`, { key: other.mailReporting })).status).toBe(404);
  });

  test("an unparsable address is invalid and a suppressed one suppressed, both without a provider call", async () => {
    const before = c.simulator.stats().received;
    const invalid = await h.call<Mail["sendTemplate"]>("POST", `/mail/v1/templates/${transactionalId}/send`, {
      key: c.mailFull,
      body: { to: "not an address", params },
    });
    expect(invalid.status, describeResponse(invalid)).toBe(200);
    expect(invalid.json.data.status).toBe("invalid");
    await h.db
      .insert(mailSuppressions)
      .values({ customerId: c.id, stream: "transactional", email: "gone@example.com", active: true, reason: "hard_bounce", changedAt: h.clock.now() });
    const suppressed = await h.call<Mail["sendTemplate"]>("POST", `/mail/v1/templates/${transactionalId}/send`, {
      key: c.mailFull,
      body: { to: "Gone@Example.com", params },
    });
    expect(suppressed.json.data.status).toBe("suppressed");
    expect(c.simulator.stats().received).toBe(before);
    expect((await h.call<Mail["getMessage"]>("GET", `/mail/v1/messages/${suppressed.json.data.message_id}`, { key: c.mailReporting })).json.data.status).toBe(
      "suppressed",
    );
  });

  test("parameters are checked against the contract: missing required or unknown → 422", async () => {
    const missing = await h.call<ErrorEnvelope<ErrorDetail[]>>("POST", `/mail/v1/templates/${transactionalId}/send`, {
      key: c.mailFull,
      body: { to: "a@example.com", params: { order_number: "A-2" } },
    });
    expect(missing.status, describeResponse(missing)).toBe(422);
    expect(missing.json.error.details.map((d: { path: string }) => d.path)).toContain("params.order_url");
    const unknown = await h.call<ErrorEnvelope<ErrorDetail[]>>("POST", `/mail/v1/templates/${transactionalId}/send`, {
      key: c.mailFull,
      body: { to: "a@example.com", params: { ...params, coupon: "X" } },
    });
    expect(unknown.status, describeResponse(unknown)).toBe(422);
    expect(unknown.json.error.details[0].path).toBe("params.coupon");
    const noTo = await h.call("POST", `/mail/v1/templates/${transactionalId}/send`, { key: c.mailFull, body: { params } });
    expect(noTo.status).toBe(400);
  });

  test("blocked sending 403; incomplete provider setup 403 naming what is missing; reporting key 403", async () => {
    const blocked = await readyMailCustomer(h, "Blocked Co");
    const id = await templateIdOf(blocked.id);
    await h.admin("PATCH", `/v1/customers/${blocked.id}`, { mail: { sending_blocked: true } });
    const r = await h.call("POST", `/mail/v1/templates/${id}/send`, { key: blocked.mailFull, body: { to: "a@example.com", params } });
    expect(r.status, describeResponse(r)).toBe(403);
    expect((await h.call("GET", "/mail/v1/templates", { key: blocked.mailReporting })).status).toBe(200);
    expect((await h.call("POST", `/mail/v1/templates/${transactionalId}/send`, { key: c.mailReporting, body: { to: "a@example.com", params } })).status).toBe(
      403,
    );

    const unready = await readyMailCustomer(h, "Unready Co");
    const unreadyTemplate = await templateIdOf(unready.id);
    await h.db.execute(`update mail_provider_configs set broadcast_stream = null where customer_id = '${unready.id}'`);
    const notReady = await h.call<ErrorEnvelope<MissingDetails>>("POST", `/mail/v1/templates/${unreadyTemplate}/send`, {
      key: unready.mailFull,
      body: { to: "a@example.com", params },
    });
    expect(notReady.status, describeResponse(notReady)).toBe(403);
    expect(notReady.json.error.details.missing).toEqual(["broadcast_stream"]);
  });

  test("the monthly limit answers 429 quota_exceeded; sandbox mail is accepted, not delivered and not counted", async () => {
    const q = await readyMailCustomer(h, "Quota Co");
    const id = await templateIdOf(q.id);
    await h.admin("PATCH", `/v1/customers/${q.id}`, { mail: { monthly_limit: 1 } });
    expect(
      (await h.call<Mail["sendTemplate"]>("POST", `/mail/v1/templates/${id}/send`, { key: q.mailFull, body: { to: "a@example.com", params } })).json.data
        .status,
    ).toBe("accepted");
    const over = await h.call<ErrorEnvelope>("POST", `/mail/v1/templates/${id}/send`, { key: q.mailFull, body: { to: "b@example.com", params } });
    expect(over.status, describeResponse(over)).toBe(429);
    expect(over.json.error.code).toBe("quota_exceeded");
    expect(over.json.error.details).toEqual([]);

    await h.admin("PATCH", `/v1/customers/${q.id}`, { mail: { mode: "sandbox" } });
    const received = q.simulator.stats().received;
    const sandbox = await h.call<Mail["sendTemplate"]>("POST", `/mail/v1/templates/${id}/send`, { key: q.mailFull, body: { to: "c@example.com", params } });
    expect(sandbox.status, describeResponse(sandbox)).toBe(200);
    expect(sandbox.json.data.status).toBe("accepted");
    expect((await h.call<Mail["getMessage"]>("GET", `/mail/v1/messages/${sandbox.json.data.message_id}`, { key: q.mailReporting })).json.data.mode).toBe(
      "sandbox",
    );
    expect(q.simulator.messages({}).messages.some((m) => m.Metadata.message_id === sandbox.json.data.message_id)).toBe(false);
    expect(q.simulator.stats().received).toBe(received);
  });

  test.each([429, 503] as const)(
    "Postmark turning the send away (%i with Retry-After): 503 service_unavailable with Postmark's Retry-After, nothing kept and no message id; the key is released and the retry after it sends once",
    async (status) => {
      const f = await readyMailCustomer(h, `Throttled send ${status}`);
      const id = await templateIdOf(f.id);
      const send = <T = unknown>() =>
        h.call<T>("POST", `/mail/v1/templates/${id}/send`, {
          key: f.mailFull,
          body: { to: "t@example.com", params },
          headers: { "idempotency-key": "throttled-1" },
        });
      const throttledBefore = f.simulator.stats().throttled;
      f.simulator.setThrottle({ rate: 1, durationMs: 600_000, retryAfterSeconds: 7, status });
      try {
        for (const attempt of [1, 2]) {
          const refused = await send<ErrorEnvelope<ErrorDetail[]>>();
          expect(refused.status, `attempt ${attempt}: ${describeResponse(refused)}`).toBe(503);
          expect(refused.json).toMatchObject({ error: { code: "service_unavailable", details: [] }, request_id: expect.any(String) });
          expect(refused.json.error.message_id, describeResponse(refused)).toBeUndefined();
          // Postmark's own Retry-After, passed on.
          expect(refused.headers.get("retry-after")).toBe("7");
          expect(refused.headers.get("idempotent-replayed")).toBeNull();
        }
        expect(f.simulator.stats().throttled - throttledBefore).toBe(2);
        expect(await h.db.select().from(mailMessages).where(eq(mailMessages.customerId, f.id))).toEqual([]);
      } finally {
        f.simulator.setThrottle({ rate: 0, durationMs: 0 });
      }
      const sent = await send<Mail["sendTemplate"]>();
      expect(sent.status, describeResponse(sent)).toBe(200);
      const messageId = sent.json.data.message_id as string;
      expect(sent.json.data.status).toBe("accepted");
      expect(f.simulator.metadataMessageIdCount(messageId)).toBe(1);
      const again = await send<Mail["sendTemplate"]>();
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect(again.json.data.message_id).toBe(messageId);
      const rows = await h.db.select({ id: mailMessages.id, status: mailMessages.status }).from(mailMessages).where(eq(mailMessages.customerId, f.id));
      expect(rows).toEqual([{ id: messageId, status: "accepted" }]);
    },
  );

  test.each([
    ["a dropped connection before Postmark read it", "drop", false, "failed"],
    ["a 500", "error500", false, "failed"],
    ["a dropped connection after Postmark accepted", "drop", true, "accepted"],
  ] as const)(
    "%s: 500 with message_id, status unknown, a retry with the same key does not send again; reconciliation settles it as %s",
    async (_label, mode, afterAccept, settledAs) => {
      const f = await readyMailCustomer(h, `Fault ${mode} ${afterAccept}`);
      const id = await templateIdOf(f.id);
      f.simulator.setFaults({ mode, count: 1, afterAccept });
      const key = `send-${mode}`;
      const first = await h.call<ErrorEnvelope>("POST", `/mail/v1/templates/${id}/send`, {
        key: f.mailFull,
        body: { to: "a@example.com", params },
        headers: { "idempotency-key": key },
      });
      expect(first.status, describeResponse(first)).toBe(500);
      const messageId = first.json.error.message_id;
      expect(messageId).toMatch(/^[0-9a-f-]{36}$/);
      if (!messageId) throw new Error(describeResponse(first));
      const retry = await h.call<ErrorEnvelope>("POST", `/mail/v1/templates/${id}/send`, {
        key: f.mailFull,
        body: { to: "a@example.com", params },
        headers: { "idempotency-key": key },
      });
      expect(retry.status).toBe(500);
      expect(retry.json.error.message_id).toBe(messageId);
      expect(retry.headers.get("idempotent-replayed")).toBe("true");
      expect(f.simulator.metadataMessageIdCount(messageId)).toBeLessThanOrEqual(1);
      const message = await h.call<Mail["getMessage"]>("GET", `/mail/v1/messages/${messageId}`, { key: f.mailReporting });
      expect(message.json.data.status).toBe("unknown");

      // Postmark's Messages API decides: found → accepted; missing → failed only once Postmark has answered
      // promptly for longer than the call can have been held (at least the grace period) and its search shows
      // a message received after that (here, on a server without other traffic, the service's probes);
      // missing without that evidence → still unknown. The simulator stamps what it receives with the
      // system's time, so each step sets it to the step's moment.
      const mail = h.mailDeps;
      const ref = { message_id: messageId, customer_id: f.id };
      const createdMs = h.clock.now().getTime();
      const laterMs = createdMs + 20_000 + 120_000 + 1000;
      const at = (ms: number) => {
        vi.setSystemTime(ms);
        return { ...mail, clock: new ManualClock(new Date(ms)) };
      };
      const probesBefore = f.simulator.messages({ metadataKey: "probe_id", limit: 1000 }).total;
      const probes = () => f.simulator.messages({ metadataKey: "probe_id", limit: 1000 }).total - probesBefore;
      const status = async () => (await h.call<Mail["getMessage"]>("GET", `/mail/v1/messages/${messageId}`, { key: f.mailReporting })).json.data.status;
      vi.useFakeTimers({ toFake: ["Date"] });
      try {
        if (settledAs === "failed") {
          // Nothing answered since the call: a probe, answered now, starts the run of prompt answers.
          expect(await reconcileMessage(at(laterMs), ref)).toBe("waiting");
          expect(probes()).toBe(1);
          expect(await status()).toBe("unknown");
          // Answering, but not yet for as long as the call may have been held (laterMs - created).
          expect(await reconcileMessage(at(laterMs + (laterMs - createdMs) - 1000), ref)).toBe("waiting");
          expect(await status()).toBe("unknown");
          // In doubt for over a minute: a warning names the message.
          expect(h.logLines.some((l) => l.includes("transactional mail: in doubt for over a minute") && l.includes(messageId))).toBe(true);
          // Past that moment: the search shows nothing received after it yet, so one more probe goes out.
          expect(await reconcileMessage(at(laterMs + (laterMs - createdMs) + 60_000), ref)).toBe("waiting");
        }
        // The search shows the message (accepted), or a probe received after the moment (failed).
        expect(await reconcileMessage(at(laterMs + (laterMs - createdMs) + 61_000), ref)).toBe("settled");
      } finally {
        vi.useRealTimers();
      }
      const settled = (await h.call<Mail["getMessage"]>("GET", `/mail/v1/messages/${messageId}`, { key: f.mailReporting })).json.data;
      expect(settled.status).toBe(settledAs);
      expect(f.simulator.metadataMessageIdCount(messageId)).toBe(settledAs === "accepted" ? 1 : 0);
    },
  );
});
