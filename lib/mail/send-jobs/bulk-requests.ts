import type { z } from "@hono/zod-openapi";
import { and, asc, eq, inArray, lte } from "drizzle-orm";
import type { Database } from "../../db/client";
import { mailSendJobBulkRequests, mailSendJobs } from "../../db/schema";
import type { MailDeps } from "../deps";
import type { BulkOutcome } from "../provider/postmark";
import { providerReadiness } from "../setup/provider-config";
import type { BulkRequest } from "./schema";
import type { EngineDeps } from "./transitions";

/** Requests polled per sweep, and how long after the last check a request is asked again. */
const REFRESH_PER_SWEEP = 50;
const REFRESH_AFTER_MS = 30_000;

/**
 * The Bulk API requests of a send job (migration 0026): Postmark's request id per batch sent on the bulk
 * path and the status Postmark gave. Informational only: the messages' states come from the send answer,
 * webhooks and reconciliation, as on the batch path. A batch delivered twice records its request once.
 */
export async function recordBulkRequest(
  db: Database,
  input: { jobId: string; batchId: string; outcome: Extract<BulkOutcome, { kind: "accepted" }>; total: number; now: Date },
): Promise<void> {
  const submitted = input.outcome.submittedAt ? new Date(input.outcome.submittedAt) : null;
  await db
    .insert(mailSendJobBulkRequests)
    .values({
      requestId: input.outcome.requestId,
      jobId: input.jobId,
      batchId: input.batchId,
      status: input.outcome.status,
      totalMessages: input.total,
      submittedAt: submitted && !Number.isNaN(submitted.getTime()) ? submitted : null,
      checkedAt: input.now,
    })
    .onConflictDoNothing();
}

type BulkRequestView = z.infer<typeof BulkRequest>;

/** A job's Bulk API requests, oldest first. */
export async function listBulkRequests(db: Database, jobId: string): Promise<BulkRequestView[]> {
  const rows = await db.select().from(mailSendJobBulkRequests).where(eq(mailSendJobBulkRequests.jobId, jobId)).orderBy(asc(mailSendJobBulkRequests.checkedAt));
  return rows.map((row) => ({
    id: row.requestId,
    batch_id: row.batchId,
    status: row.status,
    total_messages: row.totalMessages,
    percentage_completed: row.percentageCompleted,
    submitted_at: row.submittedAt?.toISOString() ?? null,
  }));
}

/**
 * Asks Postmark (`GET /email/bulk/{id}`) how far the live jobs' unfinished Bulk API requests are and
 * records it; run by the send-jobs sweep, a bounded number per sweep. Sandbox jobs used Postmark's test
 * token, whose requests Postmark does not keep: they stay as answered. A failed call waits for the next sweep.
 */
export async function refreshBulkRequests(deps: EngineDeps & Pick<MailDeps, "postmark">, options: { customerId?: string; now: Date }): Promise<number> {
  const requests = await deps.db
    .select({ requestId: mailSendJobBulkRequests.requestId, customerId: mailSendJobs.customerId })
    .from(mailSendJobBulkRequests)
    .innerJoin(mailSendJobs, eq(mailSendJobs.id, mailSendJobBulkRequests.jobId))
    .where(
      and(
        inArray(mailSendJobBulkRequests.status, ["Accepted", "Processing"]),
        lte(mailSendJobBulkRequests.checkedAt, new Date(options.now.getTime() - REFRESH_AFTER_MS)),
        eq(mailSendJobs.mode, "live"),
        options.customerId ? eq(mailSendJobs.customerId, options.customerId) : undefined,
      ),
    )
    .orderBy(asc(mailSendJobBulkRequests.checkedAt))
    .limit(REFRESH_PER_SWEEP);
  let refreshed = 0;
  for (const request of requests) {
    const readiness = await providerReadiness(deps.db, deps.secrets, request.customerId);
    if (!readiness.ready) continue;
    const answer = await deps.postmark.bulkStatus(readiness.credentials.serverToken, request.requestId);
    if (answer.kind !== "answered") continue;
    await deps.db
      .update(mailSendJobBulkRequests)
      .set({ status: answer.status, percentageCompleted: answer.percentageCompleted, checkedAt: options.now })
      .where(eq(mailSendJobBulkRequests.requestId, request.requestId));
    refreshed += 1;
  }
  return refreshed;
}
