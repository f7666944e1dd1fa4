import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { mailProviderConfigs, mailSendJobs } from "../../lib/db/schema";
import { SIMULATOR_ACCOUNT_TOKEN } from "../../lib/mail/provider/simulator/account";
import { DEFAULT_REPUTATION_GUARD, guardVerdict } from "../../lib/mail/send-jobs/guard";
import { simulatorTestAddress } from "../../lib/mail/provider/simulator/test-addresses";
import { createHarness, describeResponse, type Harness, type Mail } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";
import { addRecipients, createJob, createNewsletter, holdBatches, people } from "../helpers/send-jobs";

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ postmarkWebhooks: true, postmarkSimulator: { maxTrackedMessages: 20_000 } });
});
afterAll(async () => h.close());

type Item = { item: string; status: string; message: string };
async function readiness(customerId: string): Promise<{ ready: boolean; items: Item[] }> {
  const r = await h.admin<{ data: { ready: boolean; items: Item[] } }>("GET", `/v1/customers/${customerId}/mail/readiness`);
  expect(r.status, describeResponse(r)).toBe(200);
  return r.json.data;
}
const status = (items: Item[], name: string) => items.find((i) => i.item === name)?.status;

async function sim(c: { simulator: { fetch: (r: Request) => Promise<Response> } }, path: string, body: unknown) {
  const r = await c.simulator.fetch(
    new Request(`http://sim${path}`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  );
  expect(r.status).toBe(200);
  return r.json();
}

describe("senders as Postmark confirms them", () => {
  test("without an account token: the lists count, readiness warns 'not checked with Postmark'", async () => {
    const c = await readyMailCustomer(h, "No token");
    const r = await readiness(c.id);
    expect(r.ready).toBe(true);
    expect(status(r.items, "postmark_check")).toBe("warning");
    expect(r.items.find((i) => i.item === "postmark_check")?.message).toContain("Not checked with Postmark");
  });

  test("with an account token an unconfirmed sender is red with the DNS record to publish; the simulator's verify flow turns it green", async () => {
    const c = await readyMailCustomer(h, "Token");
    const provider = await h.admin<{ data: { default_newsletter_from: { email: string } } }>("GET", `/v1/customers/${c.id}/mail/provider`);
    const domain = provider.json.data.default_newsletter_from.email.split("@")[1];
    await sim(c, "/__sim/account/domains", { name: domain, dkim_published: false, return_path_published: false });

    const patched = await h.admin<{ data: Record<string, unknown> }>("PATCH", `/v1/customers/${c.id}/mail/provider`, {
      account_token: SIMULATOR_ACCOUNT_TOKEN,
    });
    expect(patched.status, describeResponse(patched)).toBe(200);
    expect(patched.json.data.account_token_set).toBe(true);
    expect(JSON.stringify(patched.json)).not.toContain(SIMULATOR_ACCOUNT_TOKEN);
    const [row] = await h.db.select().from(mailProviderConfigs).where(eq(mailProviderConfigs.customerId, c.id));
    expect(row?.accountTokenSealed).not.toContain(SIMULATOR_ACCOUNT_TOKEN);

    const before = await readiness(c.id);
    expect(before.ready).toBe(false);
    expect(status(before.items, "default_newsletter_from")).toBe("red");
    expect(status(before.items, "return_path")).toBe("warning");
    expect(status(before.items, "postmark_check")).toBe("green");

    const senders = await h.admin<{
      data: { domains: { domain: string; dkim_verified: boolean; dns_records: { purpose: string; host: string; type: string }[] }[] };
    }>("GET", `/v1/customers/${c.id}/mail/senders`);
    const entry = senders.json.data.domains.find((d) => d.domain === domain);
    expect(entry?.dkim_verified).toBe(false);
    expect(entry?.dns_records.map((r) => [r.purpose, r.type])).toEqual([
      ["dkim", "TXT"],
      ["return_path", "CNAME"],
      ["dmarc", "TXT"],
    ]);

    // The start of a job is refused while the sender is not confirmed.
    const templateId = await createNewsletter(h, c.mailFull);
    const job = await createJob(h, c.mailFull, { template_id: templateId });
    await addRecipients(h, c.mailFull, job.id, people(2));
    const refused = await h.call("POST", `/mail/v1/send-jobs/${job.id}/start`, { key: c.mailFull });
    expect(refused.status, describeResponse(refused)).toBe(403);

    await sim(c, "/__sim/account/domains", { name: domain, dkim_published: true, return_path_published: true });
    // Published but not yet re-verified: Postmark still says no until "check again".
    expect((await readiness(c.id)).ready).toBe(false);
    const checked = await h.admin<{ data: { domains: { domain: string; dkim_verified: boolean; return_path_verified: boolean }[] } }>(
      "POST",
      `/v1/customers/${c.id}/mail/senders/check`,
    );
    expect(checked.status, describeResponse(checked)).toBe(200);
    expect(checked.json.data.domains.find((d) => d.domain === domain)).toMatchObject({ dkim_verified: true, return_path_verified: true });
    const after = await readiness(c.id);
    expect(after.ready).toBe(true);
    expect(status(after.items, "default_newsletter_from")).toBe("green");
    expect(status(after.items, "return_path")).toBe("green");
  });

  test("DMARC: Postmark's Account API reports none (the official client's Domain and DomainDetails have no such field), so readiness has no DMARC item that could never clear; the recommended record is listed with the domain's", async () => {
    const models = join(dirname(createRequire(import.meta.url).resolve("postmark")), "client", "models", "domains", "Domain.d.ts");
    const declared = readFileSync(models, "utf8");
    expect(declared).toContain("DKIMVerified");
    expect(declared).toContain("ReturnPathDomainVerified");
    expect(declared).not.toMatch(/dmarc/i);

    const c = await readyMailCustomer(h, "DMARC");
    const provider = await h.admin<{ data: { default_newsletter_from: { email: string } } }>("GET", `/v1/customers/${c.id}/mail/provider`);
    const domain = provider.json.data.default_newsletter_from.email.split("@")[1];
    await sim(c, "/__sim/account/domains", { name: domain, dkim_verified: true, return_path_verified: true });
    const patched = await h.admin("PATCH", `/v1/customers/${c.id}/mail/provider`, { account_token: SIMULATOR_ACCOUNT_TOKEN });
    expect(patched.status, describeResponse(patched)).toBe(200);
    const r = await readiness(c.id);
    expect(r.ready).toBe(true);
    expect(r.items.filter((i) => /dmarc/i.test(i.item))).toEqual([]);
    const senders = await h.admin<{ data: { domains: { domain: string; dns_records: { purpose: string; host: string; type: string; value: string }[] }[] } }>(
      "GET",
      `/v1/customers/${c.id}/mail/senders`,
    );
    expect(senders.json.data.domains.find((d) => d.domain === domain)?.dns_records).toEqual([
      { purpose: "dmarc", host: `_dmarc.${domain}`, type: "TXT", value: expect.stringMatching(/^v=DMARC1; p=none;/) },
    ]);
  });

  test("another customer's id answers 404; a support operator may check again, not change thresholds", async () => {
    const r = await h.admin("GET", `/v1/customers/${crypto.randomUUID()}/mail/senders`);
    expect(r.status).toBe(404);
  });
});

describe("the reputation guard", () => {
  test("thresholds hold exactly at the boundary, only after the minimum sample", () => {
    const t = DEFAULT_REPUTATION_GUARD;
    expect(guardVerdict({ outcomes: 500, hardBounces: 25, complaints: 0 }, t)).toBeNull();
    expect(guardVerdict({ outcomes: 500, hardBounces: 26, complaints: 0 }, t)).toBe("bounce_rate");
    expect(guardVerdict({ outcomes: 499, hardBounces: 200, complaints: 0 }, t)).toBeNull();
    expect(guardVerdict({ outcomes: 1000, hardBounces: 0, complaints: 1 }, t)).toBeNull();
    expect(guardVerdict({ outcomes: 1000, hardBounces: 0, complaints: 2 }, t)).toBe("complaint_rate");
    expect(guardVerdict({ outcomes: 3000, hardBounces: 150, complaints: 3 }, t)).toBeNull();
  });

  test("a 2,000-recipient job with 20 % hard-bouncing addresses pauses after its first batch, sends nothing more, resumes on an operator's word", {
    timeout: 240_000,
  }, async () => {
    const c = await readyMailCustomer(h, "Bad list");
    const templateId = await createNewsletter(h, c.mailFull);
    const job = await createJob(h, c.mailFull, { template_id: templateId });
    const recipients = Array.from({ length: 2000 }, (_, i) =>
      i % 5 === 0 ? { email: simulatorTestAddress("HardBounce", `bad${i}-${c.id.slice(0, 8)}`) } : { email: `ok${i}@example.com` },
    );
    for (let i = 0; i < recipients.length; i += 1000) await addRecipients(h, c.mailFull, job.id, recipients.slice(i, i + 1000));
    const batches = holdBatches(h);
    try {
      const started = await h.call("POST", `/mail/v1/send-jobs/${job.id}/start`, { key: c.mailFull });
      expect(started.status, describeResponse(started)).toBe(200);
      await h.deps.queue.idle();
      const first = batches.held.shift();
      if (!first) throw new Error("no batch published");
      await batches.run(first);
      await c.simulator.whenIdle();
      await h.deps.queue.idle();
      const paused = await h.call<Mail["getSendJob"]>("GET", `/mail/v1/send-jobs/${job.id}`, { key: c.mailReporting });
      expect(paused.json.data, describeResponse(paused)).toMatchObject({ status: "paused", pause_reason: "bounce_rate" });
      const sentAtPause = c.simulator.stats().received;
      await batches.drain();
      await c.simulator.whenIdle();
      expect(c.simulator.stats().received).toBe(sentAtPause);

      // The customer cannot resume it; an operator can.
      const byCustomer = await h.call("POST", `/mail/v1/send-jobs/${job.id}/start`, { key: c.mailFull });
      expect(byCustomer.status, describeResponse(byCustomer)).toBe(409);
      const reputation = await h.admin<{ data: { paused_jobs: number; newsletter: { hard_bounce_rate: number } } }>(
        "GET",
        `/v1/customers/${c.id}/mail/reputation`,
      );
      expect(reputation.json.data.paused_jobs).toBe(1);
      expect(reputation.json.data.newsletter.hard_bounce_rate).toBeGreaterThan(0.05);

      const resumed = await h.admin<{ data: { status: string } }>("POST", `/v1/customers/${c.id}/mail/send-jobs/${job.id}/resume`);
      expect(resumed.status, describeResponse(resumed)).toBe(200);
      expect(resumed.json.data.status).toBe("running");
      const [row] = await h.db.select().from(mailSendJobs).where(eq(mailSendJobs.id, job.id));
      expect(row?.guardOutcomes).toBe(0);
      // The new run's first batch goes out: the rest of the list reaches Postmark again.
      await h.deps.queue.idle();
      const next = batches.held.shift();
      if (!next) throw new Error("the resume published no batch");
      await batches.run(next);
      expect(c.simulator.stats().received).toBeGreaterThan(sentAtPause);
    } finally {
      batches.release();
    }
  });

  test("a clean job is never paused; headers carry Postmark's one-click unsubscribe pair", { timeout: 240_000 }, async () => {
    const c = await readyMailCustomer(h, "Clean list");
    const templateId = await createNewsletter(h, c.mailFull);
    const job = await createJob(h, c.mailFull, { template_id: templateId });
    await addRecipients(h, c.mailFull, job.id, people(600, `clean-${c.id.slice(0, 8)}.example`));
    const started = await h.call("POST", `/mail/v1/send-jobs/${job.id}/start`, { key: c.mailFull });
    expect(started.status, describeResponse(started)).toBe(200);
    // 600 recipients through PGlite on a shared machine: give the job time (the status is what is asserted).
    const done = await vi.waitFor(
      async () => {
        const r = await h.call<Mail["getSendJob"]>("GET", `/mail/v1/send-jobs/${job.id}`, { key: c.mailReporting });
        expect(r.json.data.status, describeResponse(r)).toBe("completed");
        return r.json.data;
      },
      { timeout: 180_000, interval: 200 },
    );
    expect(done.pause_reason).toBeNull();
    await c.simulator.whenIdle();
    await h.deps.queue.idle();
    const [row] = await h.db.select().from(mailSendJobs).where(eq(mailSendJobs.id, job.id));
    expect(row?.guardOutcomes).toBe(600);
    expect(row?.status).toBe("completed");
    const [latest] = c.simulator.messages({ limit: 1 }).messages;
    if (!latest) throw new Error("no message at the simulator");
    const headers = c.simulator.message(latest.MessageID).Headers;
    expect(headers).toEqual(
      expect.arrayContaining([{ Name: "List-Unsubscribe-Post", Value: "List-Unsubscribe=One-Click" }, expect.objectContaining({ Name: "List-Unsubscribe" })]),
    );
  });
});
