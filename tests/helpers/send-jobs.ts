import { eq } from "drizzle-orm";
import { expect, vi } from "vitest";
import { mailSendJobAddressSets, mailSendJobChunks } from "../../lib/db/schema";
import { demoBlocks } from "../../lib/mail/blocks/library";
import { SEND_JOB_BATCH_TOPIC } from "../../lib/mail/send-jobs/transitions";
import type { QueueBody, QueueHandler } from "../../lib/adapters/queue";
import { describeResponse, type Harness, type Mail } from "./harness";

const block = (slug: string) => demoBlocks.find((b) => b.slug === slug)?.id ?? "";

/** A builder newsletter that greets the recipient, links twice and has a personal subject. */
export function newsletterBody(name = "Spring news") {
  return {
    name,
    subject: "News for {{first_name}}",
    blocks: [
      { block_id: block("heading"), values: { title: "Hello {{first_name}}", subtitle: "{{#city}}Greetings to {{city}}{{/city}}" } },
      { block_id: block("text"), values: { body: "Spring is here. Campaign {{campaign}}." } },
      { block_id: block("button"), values: { label: "Shop now", url: "https://shop.example.com/spring" } },
    ],
  };
}

export async function createNewsletter(h: Harness, key: string, name?: string): Promise<string> {
  const r = await h.call<Mail["createTemplate"]>("POST", "/mail/v1/templates", { key, body: newsletterBody(name) });
  expect(r.status, describeResponse(r)).toBe(201);
  return r.json.data.id;
}

export async function createJob(h: Harness, key: string, body: Record<string, unknown>): Promise<Mail["createSendJob"]["data"]> {
  const r = await h.call<Mail["createSendJob"]>("POST", "/mail/v1/send-jobs", { key, body });
  expect(r.status, describeResponse(r)).toBe(201);
  return r.json.data;
}

export async function addRecipients(
  h: Harness,
  key: string,
  jobId: string,
  recipients: { email: string; data?: Record<string, unknown> }[],
  headers?: Record<string, string>,
) {
  const r = await h.call<Mail["addSendJobRecipients"]>("POST", `/mail/v1/send-jobs/${jobId}/recipients`, { key, body: { recipients }, headers });
  expect(r.status, describeResponse(r)).toBe(200);
  return r.json.data;
}

export const people = (n: number, domain = "example.com", offset = 0) =>
  Array.from({ length: n }, (_, i) => ({ email: `reader${offset + i}@${domain}`, data: { first_name: `Reader ${offset + i}` } }));

/**
 * Holds the batch descriptors a job publishes instead of running them, so a test decides when (and how
 * often) each batch runs: the at-least-once queue, made deterministic.
 */
export function holdBatches(h: Harness) {
  const real = h.deps.queue.handler(SEND_JOB_BATCH_TOPIC);
  if (!real) throw new Error("the send-job worker is not registered");
  const held: QueueBody[] = [];
  h.deps.queue.register(SEND_JOB_BATCH_TOPIC, async (body) => {
    held.push(body);
  });
  return {
    held,
    run: (body: QueueBody) => real(body, { attempt: 1 }),
    /** Runs held descriptors (and those they publish) until none is left. */
    async drain(): Promise<number> {
      let runs = 0;
      await h.deps.queue.idle();
      while (held.length > 0) {
        const body = held.shift();
        if (body) await real(body, { attempt: 1 });
        runs++;
        await h.deps.queue.idle();
      }
      return runs;
    },
    release(): void {
      h.deps.queue.register(SEND_JOB_BATCH_TOPIC, real as QueueHandler);
    },
  };
}

/** Rows that hold a job's addresses or its duplicate set: none once the job has ended. */
export async function transientRows(h: Harness, jobId: string): Promise<number> {
  const chunks = await h.db.select().from(mailSendJobChunks).where(eq(mailSendJobChunks.sendJobId, jobId));
  const sets = await h.db.select().from(mailSendJobAddressSets).where(eq(mailSendJobAddressSets.sendJobId, jobId));
  return chunks.length + sets.length;
}

type SendJob = Mail["getSendJob"]["data"];

/**
 * Waits until the job reaches `status` (polling; the local queue may also hold delayed messages, e.g. a
 * scheduled start hours ahead, so `queue.idle()` would not return).
 */
export async function waitForJob(h: Harness, key: string, jobId: string, status: string): Promise<SendJob> {
  return vi.waitFor(
    async () => {
      const job = (await h.call<Mail["getSendJob"]>("GET", `/mail/v1/send-jobs/${jobId}`, { key })).json.data;
      expect(job.status).toBe(status);
      return job;
    },
    { timeout: 15_000, interval: 50 },
  );
}
