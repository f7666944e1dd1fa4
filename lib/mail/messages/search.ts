import { and, desc, eq, gte, inArray, lt } from "drizzle-orm";
import type { Database } from "../../db/client";
import { mailMessages, mailSendJobs, type messageStatuses, type templateKinds } from "../../db/schema";
import type { z } from "@hono/zod-openapi";
import { ValidationError } from "../../core/errors";
import { beforeCursor, decodeCursor, toPage, type Cursor } from "../../core/pagination";
import { parseRecipient, recipientHash } from "../sending/address";
import type { MessageSearchQuery } from "./schema";
import { getMessage, messageColumns, messageOutcome, withJob, type Message } from "./service";

/**
 * The operator's message search ("did our mail to anna@… arrive?").
 *
 * Invariants:
 * - Every query filters by customer first; another customer's message is never found.
 * - The recipient is matched through `recipient_hash` (SHA-256 of the normalised address), computed from
 *   the address asked for exactly as sending computed it, so a message is found long after its job ended
 *   and the address itself was deleted. No address is read or returned.
 * - Newest first by (created_at, id), keyset-paged: the cursor is opaque and new messages never shift a page.
 */

type PublicStatus = Exclude<(typeof messageStatuses)[number], "sending">;

export type MessageSearch = {
  recipient?: string;
  status?: PublicStatus;
  kind?: (typeof templateKinds)[number];
  sendJobId?: string;
  templateId?: string;
  /** Inclusive lower bound on `created_at`. */
  since?: Date;
  /** Exclusive upper bound on `created_at`. */
  until?: Date;
  limit: number;
  after: Cursor | null;
};

/** The hash sending stored for `address`: a mailbox (`Ann <ann@…>`) by its address, anything else as given. */
function searchHash(address: string): string {
  return recipientHash(parseRecipient(address)?.address ?? address);
}

async function searchMessages(db: Database, customerId: string, input: MessageSearch) {
  const m = mailMessages;
  const rows = await db
    .select(messageColumns)
    .from(m)
    .leftJoin(mailSendJobs, withJob)
    .where(
      and(
        eq(m.customerId, customerId),
        input.recipient !== undefined ? eq(m.recipientHash, searchHash(input.recipient)) : undefined,
        // `sending` (the in-flight mark) is `pending` to callers.
        input.status ? inArray(m.status, input.status === "pending" ? ["pending", "sending"] : [input.status]) : undefined,
        input.kind ? eq(m.kind, input.kind) : undefined,
        input.sendJobId ? eq(m.sendJobId, input.sendJobId) : undefined,
        input.templateId ? eq(m.templateId, input.templateId) : undefined,
        input.since ? gte(m.createdAt, input.since) : undefined,
        input.until ? lt(m.createdAt, input.until) : undefined,
        beforeCursor(m.createdAt, m.id, input.after),
      ),
    )
    .orderBy(desc(m.createdAt), desc(m.id))
    .limit(input.limit + 1);
  const page = toPage(rows, input.limit, (row) => ({ at: row.createdAt.toISOString(), id: row.id }));
  const items = page.items.map((row) => ({
    id: row.id,
    kind: row.kind,
    mode: row.mode,
    template_id: row.templateId,
    send_job_id: row.sendJobId,
    subject: row.subject,
    ...messageOutcome(row),
    accepted_at: row.acceptedAt?.toISOString() ?? null,
    provider_message_id: row.providerMessageId,
  }));
  return { items, paging: page.paging };
}

/**
 * One message as the customer's `GET /v1/messages/{id}` shows it, plus what only the operator sees: the
 * provider's message id, the hand-overs to the provider and a timeline that begins with our own steps
 * (created, accepted) before the provider's events.
 */
export async function getMessageDetail(db: Database, customerId: string, id: string, now: Date) {
  const message: Message = await getMessage(db, customerId, id, now);
  const [row] = await db
    .select({ providerMessageId: mailMessages.providerMessageId, attempts: mailMessages.attempts, acceptedAt: mailMessages.acceptedAt })
    .from(mailMessages)
    .where(and(eq(mailMessages.customerId, customerId), eq(mailMessages.id, id)));
  const acceptedAt = row?.acceptedAt?.toISOString() ?? null;
  const own = [
    { type: "created", at: message.created_at, details: { status_now: message.status } },
    // The send path records its own `accepted` event; older messages only have the column.
    ...(acceptedAt && !message.events.some((e) => e.type === "accepted")
      ? [{ type: "accepted", at: acceptedAt, details: { provider_message_id: row?.providerMessageId ?? null } }]
      : []),
  ];
  const timeline = [...own, ...message.events].sort((a, b) => a.at.localeCompare(b.at));
  return { ...message, accepted_at: acceptedAt, provider_message_id: row?.providerMessageId ?? null, provider_attempts: row?.attempts ?? 0, timeline };
}

/** A search as both APIs take it (`MessageSearchQuery`): `since` must be before `until`, else 422. */
export function searchMessagesByQuery(db: Database, customerId: string, query: z.infer<typeof MessageSearchQuery>) {
  const since = query.since ? new Date(query.since) : undefined;
  const until = query.until ? new Date(query.until) : undefined;
  if (since && until && since >= until) throw new ValidationError("`since` must be before `until`.", [{ path: "since", message: "Must be before `until`." }]);
  return searchMessages(db, customerId, {
    recipient: query.recipient,
    status: query.status,
    kind: query.kind,
    sendJobId: query.send_job_id,
    templateId: query.template_id,
    since,
    until,
    limit: query.limit,
    after: decodeCursor(query.after),
  });
}
