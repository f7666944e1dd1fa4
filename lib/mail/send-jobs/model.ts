import { and, eq } from "drizzle-orm";
import type { Database } from "../../db/client";
import { mailSendJobs } from "../../db/schema";
import { NotFoundError } from "../../core/errors";

/** Recipients per provider call: Postmark's batch maximum. */
export const BATCH_SIZE = 500;

export type SendJobRow = typeof mailSendJobs.$inferSelect;
export type SendJobStatus = SendJobRow["status"];

export type RecipientCounters = { total: number; accepted: number; suppressed: number; invalid: number; failed: number; unknown: number; pending: number };

export type SendJob = {
  id: string;
  status: SendJobStatus;
  mode: "live" | "sandbox";
  template_id: string;
  params: Record<string, string>;
  from: { email: string; name: string };
  reply_to: string | null;
  scheduled_at: string | null;
  recipients: RecipientCounters;
  batches: { size: number; completed: number; remaining: number } | null;
  pause_reason: SendJobRow["pauseReason"];
  error: string | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
};

const iso = (d: Date | null) => d?.toISOString() ?? null;

export function counters(row: SendJobRow): RecipientCounters {
  return {
    total: row.total,
    accepted: row.accepted,
    suppressed: row.suppressed,
    invalid: row.invalid,
    failed: row.failed,
    unknown: row.unknown,
    pending: row.pending,
  };
}

export function toSendJobView(row: SendJobRow): SendJob {
  return {
    id: row.id,
    status: row.status,
    mode: row.mode,
    template_id: row.templateId,
    params: row.params,
    from: row.from,
    reply_to: row.replyTo,
    scheduled_at: iso(row.scheduledAt),
    recipients: counters(row),
    batches: row.status === "draft" ? null : { size: BATCH_SIZE, completed: row.batchesCompleted, remaining: Math.ceil(row.pending / BATCH_SIZE) },
    pause_reason: row.pauseReason,
    error: row.error,
    created_at: row.createdAt.toISOString(),
    started_at: iso(row.startedAt),
    completed_at: iso(row.completedAt),
  };
}

export function ownJob(customerId: string, id: string) {
  return and(eq(mailSendJobs.customerId, customerId), eq(mailSendJobs.id, id));
}

export async function getSendJobRow(db: Database, customerId: string, id: string): Promise<SendJobRow> {
  const [row] = await db.select().from(mailSendJobs).where(ownJob(customerId, id));
  if (!row) throw new NotFoundError("Send job");
  return row;
}
