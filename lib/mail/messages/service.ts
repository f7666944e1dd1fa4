import type { z } from "@hono/zod-openapi";
import { and, asc, eq, getTableColumns, gte, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { mailMessageEvents, mailMessageExtraCopies, mailMessages, mailSendJobs } from "../../db/schema";
import { NotFoundError } from "../../core/errors";
import type { Message as MessageSchema } from "./schema";

export type MessageRow = typeof mailMessages.$inferSelect;

/** A message as `GET /v1/messages/{id}` shows it. */
export type Message = z.infer<typeof MessageSchema>;

/** Message history is kept this long; state is kept permanently. */
export const MESSAGE_HISTORY_DAYS = 90;

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** `sending` is internal (the in-flight mark); callers see it as `pending`. */
function publicStatus(status: MessageRow["status"]) {
  return status === "sending" ? "pending" : status;
}

/**
 * A message's subject: its own (transactional), or its send job's (a job's messages store none: one copy on
 * the job instead of one per recipient). Selected with `withJob`'s join.
 */
const messageSubject = sql<string>`coalesce(${mailMessages.subject}, ${mailSendJobs.subject}, '')`;
/** Every column of a message, the subject as `messageSubject` gives it. */
export const messageColumns = { ...getTableColumns(mailMessages), subject: messageSubject };
/** The join `messageSubject` reads the job's subject through. */
export const withJob = eq(mailSendJobs.id, mailMessages.sendJobId);

export async function getMessage(db: Database, customerId: string, id: string, now: Date): Promise<Message> {
  const [row] = await db
    .select(messageColumns)
    .from(mailMessages)
    .leftJoin(mailSendJobs, withJob)
    .where(and(eq(mailMessages.customerId, customerId), eq(mailMessages.id, id)));
  if (!row) throw new NotFoundError("Message");
  const since = new Date(now.getTime() - MESSAGE_HISTORY_DAYS * 86_400_000);
  const events = await db
    .select()
    .from(mailMessageEvents)
    .where(and(eq(mailMessageEvents.messageId, id), gte(mailMessageEvents.occurredAt, since)))
    .orderBy(asc(mailMessageEvents.occurredAt), asc(mailMessageEvents.id));
  const { status, bounce_type, error, ...times } = messageOutcome(row);
  return {
    id: row.id,
    kind: row.kind,
    mode: row.mode,
    status,
    template_id: row.templateId,
    send_job_id: row.sendJobId,
    subject: row.subject,
    bounce_type,
    error,
    ...times,
    events: events.map((e) => ({ type: e.type, at: e.occurredAt.toISOString(), details: e.details })),
  };
}

/** A message's state and times as the API shows them (the message itself and the list of a send job's messages). */
export function messageOutcome(row: MessageRow) {
  return {
    status: publicStatus(row.status),
    bounce_type: row.bounceType,
    error: row.error,
    created_at: row.createdAt.toISOString(),
    delivered_at: iso(row.deliveredAt),
    first_opened_at: iso(row.firstOpenedAt),
    first_clicked_at: iso(row.firstClickedAt),
    bounced_at: iso(row.bouncedAt),
    complained_at: iso(row.complainedAt),
  };
}

/** Accepted live e-mails of the calendar month (UTC) containing `now`: what usage and quotas count. */
export async function acceptedLiveThisMonth(db: Database, customerId: string, now: Date, excluding: readonly string[] = []): Promise<number> {
  const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(mailMessages)
    .where(
      and(
        eq(mailMessages.customerId, customerId),
        eq(mailMessages.mode, "live"),
        gte(mailMessages.acceptedAt, monthStart),
        excluding.length > 0 ? sql`${mailMessages.id} <> all(${sql.param([...excluding])}::uuid[])` : undefined,
      ),
    );
  // Second copies Postmark received of a message (../send-jobs/late-truth.ts): Postmark counts them, so does usage.
  const [copies] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(mailMessageExtraCopies)
    .where(and(eq(mailMessageExtraCopies.customerId, customerId), eq(mailMessageExtraCopies.mode, "live"), gte(mailMessageExtraCopies.acceptedAt, monthStart)));
  return (row?.n ?? 0) + (copies?.n ?? 0);
}
