import { eq } from "drizzle-orm";
import type { Database } from "../../db/client";
import { mailSendJobs } from "../../db/schema";
import type { MailCaches } from "../deps";
import { createBatchWriter, type BatchWriter } from "./batch-payload";
import type { BatchJob } from "./batch-store";
import { createBulkWriter } from "./bulk-payload";

/**
 * The batch writer of a run on a stream, for `/email/batch` or Postmark's Bulk API (`path`). A job's rendered template, subject, params, sender and reply-to
 * are written when it starts and never change afterwards, so one writer serves every batch of a run; the
 * template (tens of KB of JSON) is read from the database once per run instead of once per batch. Kept in
 * `caches.batchWriters` by job, run and stream (a provider configuration change takes effect at the next
 * batch); a few jobs at a time, the least recently used dropped.
 */
export async function batchWriter(
  deps: { db: Database; caches: Pick<MailCaches, "batchWriters"> },
  job: BatchJob,
  stream: string,
  path: "batch" | "bulk" = "batch",
): Promise<BatchWriter | { error: string }> {
  const key = `${job.id}|${job.run}|${stream}|${path}`;
  const kept = deps.caches.batchWriters.get(key);
  if (kept) return kept;
  const [row] = await deps.db.select({ compiled: mailSendJobs.compiled }).from(mailSendJobs).where(eq(mailSendJobs.id, job.id));
  const render = row?.compiled;
  if (render?.html.format !== 1) return { error: "The job's rendered template is missing or of an unknown format; it cannot be sent." };
  let writer: BatchWriter;
  try {
    writer = (path === "bulk" ? createBulkWriter : createBatchWriter)({
      compiled: render.html,
      subject: job.subject ?? "",
      defaults: { ...render.values, ...job.params },
      from: job.from,
      replyTo: job.replyTo,
      stream,
      sendJobId: job.id,
    });
  } catch (error) {
    return { error: `The template could not be rendered: ${error instanceof Error ? error.message : String(error)}` };
  }
  deps.caches.batchWriters.set(key, writer);
  return writer;
}
