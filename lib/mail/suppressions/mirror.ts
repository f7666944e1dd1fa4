import { and, asc, eq, gte, max, sql } from "drizzle-orm";
import type { Database, Tx } from "../../db/client";
import { mailSuppressions, type mailStreams } from "../../db/schema";
import { afterCursor, toPage, type Cursor } from "../../core/pagination";
import type { MailEventPayloads, SuppressionReason } from "../webhooks/emit";

export type Stream = (typeof mailStreams)[number];

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
/** A row that is in the feed: it has been set at least once, so it has a reason and a feed time. */
type ListedRow = Omit<Row, "reason" | "changedAt"> & { reason: SuppressionReason; changedAt: Date };
export type SuppressionEntry = MailEventPayloads["suppression.changed"];

/** `at`: when the provider made the change (webhook time); our own changes (reactivate) use now. */
export type SuppressionChange = ({ active: true; reason: SuppressionReason } | { active: false }) & { at?: Date };

/** A spam complaint outranks a hard bounce, which outranks an unsubscribe: the stronger reason is kept. */
const REASON_RANK: Record<SuppressionReason, number> = { unsubscribe: 0, hard_bounce: 1, spam_complaint: 2 };

/**
 * Rows read by feed time or as active are listed (the table's check constraint: `changed_at` and `reason`
 * are set together, and always for an active row); this narrows the type and fails loudly otherwise.
 */
export function listed(row: Row): ListedRow {
  const { reason, changedAt } = row;
  if (reason === null || changedAt === null) throw new Error(`suppression row ${row.id} is not in the feed`);
  return { ...row, reason, changedAt };
}

export function toSuppressionEntryView(row: Pick<ListedRow, "email" | "stream" | "active" | "reason" | "changedAt">): SuppressionEntry {
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
 * Applies one change to the mirror and returns the new entry, or null when the feed does not change (a
 * repeated webhook, a weaker reason on an active suppression, lifting what is not set). Changes of one feed
 * (customer, stream) are serialised by a transaction-scoped advisory lock and get strictly increasing
 * `changed_at` values (at least the previous one plus 1 ms): the feed's order is the commit order, so a
 * reader paging by `(changed_at, id)` or by the last `changed_at` can never skip an entry that commits later.
 *
 * Webhooks arrive out of order (Postmark retries): the mirror keeps the time of the latest provider change
 * it has seen (`source_at`), also when that change left the feed as it was, and ignores anything older.
 * Changes with the same provider time commute: a suppression wins over a lift, with the strongest reason.
 * A lift for an address the mirror never had suppressed is remembered in a row outside the feed (no
 * `changed_at`, no reason), so the suppression it lifted, arriving late, cannot suppress the address.
 */
export async function applySuppressionChange(
  tx: Tx,
  customerId: string,
  stream: Stream,
  email: string,
  change: SuppressionChange,
  now: Date,
): Promise<SuppressionEntry | null> {
  const address = normaliseAddress(email);
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`mail-suppressions:${customerId}:${stream}`}, 0))`);
  const feed = and(eq(mailSuppressions.customerId, customerId), eq(mailSuppressions.stream, stream));
  const [existing] = await tx
    .select()
    .from(mailSuppressions)
    .where(and(feed, eq(mailSuppressions.email, address)));
  const key = { customerId, stream, email: address };
  const target = [mailSuppressions.customerId, mailSuppressions.stream, mailSuppressions.email];

  // Our own changes (reactivate, after Postmark confirmed it) carry no `at` and always apply.
  const mirroredAt = existing?.sourceAt?.getTime() ?? -Infinity;
  if (change.at && change.at.getTime() < mirroredAt) return null;
  const sourceAt = new Date(Math.max(change.at?.getTime() ?? now.getTime(), mirroredAt));

  // Two provider changes with the same time end the same way in either arrival order: the suppression
  // wins over a lift, with the strongest reason in force at that time. So at a tie a lift of an active
  // suppression is ignored, and a set after a lift at that time counts the reason the lift ended.
  const tie = change.at !== undefined && change.at.getTime() === mirroredAt;
  const inForce = existing?.active || tie ? (existing?.reason ?? null) : null;
  let reason: SuppressionReason | null;
  if (change.active) {
    const strongest = inForce === null || REASON_RANK[change.reason] > REASON_RANK[inForce] ? change.reason : inForce;
    // Already active with that reason: the feed stays as it is.
    reason = existing?.active && existing.reason === strongest ? null : strongest;
  } else {
    // A lift keeps the reason it ended.
    reason = existing?.active && !tie ? existing.reason : null;
  }
  if (reason === null) {
    // The feed stays as it is, but a newer provider time makes older changes still in flight stale.
    if (sourceAt.getTime() > mirroredAt) {
      await tx
        .insert(mailSuppressions)
        .values({ ...key, active: false, reason: null, changedAt: null, sourceAt })
        .onConflictDoUpdate({ target, set: { sourceAt } });
    }
    return null;
  }

  const [last] = await tx
    .select({ at: max(mailSuppressions.changedAt) })
    .from(mailSuppressions)
    .where(feed);
  const floor = last?.at ? last.at.getTime() + 1 : -Infinity;
  const changedAt = new Date(Math.max(now.getTime(), floor));
  const values = { active: change.active, reason, changedAt, sourceAt };
  await tx
    .insert(mailSuppressions)
    .values({ ...key, ...values })
    .onConflictDoUpdate({ target, set: values });
  return toSuppressionEntryView({ ...key, ...values });
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
  // `changed_at >= since` leaves out the rows that were never in the feed.
  const page = toPage(rows.map(listed), input.limit, (row) => ({ at: row.changedAt.toISOString(), id: row.id }));
  return { items: page.items.map(toSuppressionEntryView), paging: page.paging };
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
          .where(
            and(
              eq(mailSuppressions.customerId, customerId),
              eq(mailSuppressions.stream, stream),
              eq(mailSuppressions.active, true),
              // One array parameter rather than `in ($1, …, $500)`: a batch's lookup is one bind value.
              sql`${mailSuppressions.email} = any(${sql.param(addresses)}::text[])`,
            ),
          );
  const byAddress = new Map(rows.map((row) => [row.email, listed(row)]));
  return emails.map((email) => {
    const row = byAddress.get(normaliseAddress(email));
    if (!row) return { email, suppressed: false };
    return { email, suppressed: true, reason: row.reason, reactivatable: row.reason !== "spam_complaint", since: row.changedAt.toISOString() };
  });
}
