import { asc, eq } from "drizzle-orm";
import type { Database } from "../../db/client";
import { mailSendJobBulkRequests } from "../../db/schema";
import type { BulkOutcome } from "../provider/postmark";

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

type BulkRequestView = {
  id: string;
  batch_id: string;
  status: "Accepted" | "Processing" | "Completed" | "Failed";
  total_messages: number;
  percentage_completed: number;
  submitted_at: string | null;
};

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
