import { and, asc, eq, gte, inArray, max, sql } from "drizzle-orm";
import type { Database, Tx } from "../../db/client";
import { mailSuppressions } from "../../db/schema";
import { afterCursor, toPage, type Cursor } from "../../core/pagination";
import type { MailEventPayloads, SuppressionReason } from "../webhooks/emit";

export type Stream = "newsletter" | "transactional";
export type { SuppressionReason };

/** Addresses are compared lower-cased: Postmark treats them case-insensitively. */
export function normaliseAddress(email: string): string {
  return email.trim().toLowerCase();
}

/** The mirror's answer for one address on one stream; sends consult it before calling the provider. */
export async function isSuppressed(db: Database, customerId: string, stream: Stream, email: string): Promise<boolean> {
  const [row] = await db
    .select({ active: mailSuppressions.active })
    .from(mailSuppressions)
    .where(and(eq(mailSuppressions.customerId, customerId), eq(mailSuppressions.stream, stream), eq(mailSuppressions.email, normaliseAddress(email))));
  return row?.active ?? false;
}

type Row = typeof mailSuppressions.$inferSelect;
export type SuppressionEntry = MailEventPayloads["suppression.changed"];

/** `at`: when the provider made the change (webhook time); our own changes (reactivate) use now. */
export type SuppressionChange = ({ active: true; reason: SuppressionReason } | { active: false }) & { at?: Date };

/** A spam complaint outranks a hard bounce, which outranks an unsubscribe: the stronger reason is kept. */
const REASON_RANK: Record<SuppressionReason, number> = { unsubscribe: 0, hard_bounce: 1, spam_complaint: 2 };

export function toEntry(row: Row): SuppressionEntry {
  return {
    email: row.email,
    stream: row.stream,
    active: row.active,
    reason: row.reason,
    // Only a set suppression can be lifted, and a spam complaint never (Postmark refuses, P6).
    reactivatable: row.active && row.reason !== "spam_complaint",
    changed_at: row.changedAt.toISOString(),
  };
}

/**
 * Applies one change to the mirror and returns the new entry, or null when nothing changed (a repeated
 * webhook, a weaker reason on an active suppression, lifting what is not set). Changes of one feed
 * (customer, stream) are serialised by a transaction-scoped advisory lock and get strictly increasing
 * `changed_at` values (at least the previous one plus 1 ms): the feed's order is the commit order, so a
 * reader paging by `(changed_at, id)` or by the last `changed_at` can never skip an entry that commits later.
 */
export async function applySuppressionChange(tx: Tx, customerId: string, stream: Stream, email: string, change: SuppressionChange, now: Date): Promise<SuppressionEntry | null> {
  const address = normaliseAddress(email);
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`mail-suppressions:${customerId}:${stream}`}, 0))`);
  const feed = and(eq(mailSuppressions.customerId, customerId), eq(mailSuppressions.stream, stream));
  const [existing] = await tx
    .select()
    .from(mailSuppressions)
    .where(and(feed, eq(mailSuppressions.email, address)));

  // Webhooks can arrive out of order (retries): a provider change older than the one mirrored is stale.
  // Our own changes (reactivate, after Postmark confirmed it) carry no `at` and always apply.
  const mirroredAt = existing?.sourceAt?.getTime() ?? -Infinity;
  if (change.at && change.at.getTime() < mirroredAt) return null;
  const sourceAt = new Date(Math.max(change.at?.getTime() ?? now.getTime(), mirroredAt));

  let reason: SuppressionReason;
  if (change.active) {
    if (existing?.active && REASON_RANK[change.reason] <= REASON_RANK[existing.reason]) return null;
    reason = change.reason;
  } else {
    if (!existing?.active) return null;
    reason = existing.reason;
  }

  const [last] = await tx.select({ at: max(mailSuppressions.changedAt) }).from(mailSuppressions).where(feed);
  const floor = last?.at ? last.at.getTime() + 1 : -Infinity;
  const changedAt = new Date(Math.max(now.getTime(), floor));
  const values = { active: change.active, reason, changedAt, sourceAt };
  const [row] = await tx
    .insert(mailSuppressions)
    .values({ customerId, stream, email: address, ...values })
    .onConflictDoUpdate({ target: [mailSuppressions.customerId, mailSuppressions.stream, mailSuppressions.email], set: values })
    .returning();
  return row ? toEntry(row) : null;
}

/**
 * The change feed: one entry per address in its latest state, ordered by `(changed_at, id)`; an address
 * that changes again moves to the end, so a reader that keeps polling always ends with the current state.
 */
export async function listSuppressionChanges(db: Database, customerId: string, input: { stream: Stream; since: Date; limit: number; after: Cursor | null }) {
  const rows = await db
    .select()
    .from(mailSuppressions)
    .where(
      and(
        eq(mailSuppressions.customerId, customerId),
        eq(mailSuppressions.stream, input.stream),
        gte(mailSuppressions.changedAt, input.since),
        afterCursor(mailSuppressions.changedAt, mailSuppressions.id, input.after),
      ),
    )
    .orderBy(asc(mailSuppressions.changedAt), asc(mailSuppressions.id))
    .limit(input.limit + 1);
  const page = toPage(rows, input.limit, (row) => ({ at: row.changedAt.toISOString(), id: row.id }));
  return { items: page.items.map(toEntry), paging: page.paging };
}

export type LookupResult =
  | { email: string; suppressed: false }
  | { email: string; suppressed: true; reason: SuppressionReason; reactivatable: boolean; since: string };

/** Answers from the mirror, in the order asked; each address is echoed as given and matched lower-cased. */
export async function lookupSuppressions(db: Database, customerId: string, stream: Stream, emails: readonly string[]): Promise<LookupResult[]> {
  const addresses = [...new Set(emails.map(normaliseAddress))];
  const rows =
    addresses.length === 0
      ? []
      : await db
          .select()
          .from(mailSuppressions)
          .where(and(eq(mailSuppressions.customerId, customerId), eq(mailSuppressions.stream, stream), eq(mailSuppressions.active, true), inArray(mailSuppressions.email, addresses)));
  const byAddress = new Map(rows.map((row) => [row.email, row]));
  return emails.map((email) => {
    const row = byAddress.get(normaliseAddress(email));
    if (!row) return { email, suppressed: false };
    return { email, suppressed: true, reason: row.reason, reactivatable: row.reason !== "spam_complaint", since: row.changedAt.toISOString() };
  });
}
