import type { z } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import type { Database } from "../../db/client";
import { mailSendJobs } from "../../db/schema";
import { NotFoundError } from "../../core/errors";
import type { RecipientCounters as RecipientCountersSchema, SendJob as SendJobSchema } from "./schema";

/** Recipients per provider call: Postmark's batch maximum. */
export const BATCH_SIZE = 500;

export type SendJobRow = typeof mailSendJobs.$inferSelect;
export type SendJobStatus = SendJobRow["status"];

export type RecipientCounters = z.infer<typeof RecipientCountersSchema>;

/** A send job as the API shows it. */
export type SendJob = z.infer<typeof SendJobSchema>;

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
    sent_twice: row.sentTwice,
  };
}

/** A job's name when none is given: the template's name and the UTC day of creation (jobs from before names: the day only). */
export function defaultJobName(templateName: string | null, createdAt: Date): string {
  const day = createdAt.toISOString().slice(0, 10);
  return templateName ? `${templateName} · ${day}` : `Send job of ${day}`;
}

export function toSendJobView(row: SendJobRow): SendJob {
  return {
    id: row.id,
    name: row.name ?? defaultJobName(null, row.createdAt),
    subject: row.subject,
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
