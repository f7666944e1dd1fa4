import { and, desc, eq, gte, isNotNull } from "drizzle-orm";
import type { Database } from "../../db/client";
import { mailSuppressions } from "../../db/schema";
import { beforeCursor, toPage, type Cursor } from "../../core/pagination";
import type { SuppressionReason } from "../webhooks/emit";
import { listed, toSuppressionEntryView, type Stream, type SuppressionEntry } from "./mirror";

/**
 * The operator's list of a customer's suppression mirror, one stream at a time.
 *
 * Invariants:
 * - Only rows in the feed are listed (set at least once: they have a reason and a `changed_at`); each
 *   address appears once, in its latest state, exactly as the customer's feed shows it.
 * - Newest change first by (changed_at, id), keyset-paged; the CSV export walks the same order in pages,
 *   so memory stays flat whatever the list's length.
 */

export type SuppressionFilter = { stream: Stream; reason?: SuppressionReason; active?: boolean; changedSince?: Date };

function where(customerId: string, filter: SuppressionFilter, after: Cursor | null) {
  const s = mailSuppressions;
  return and(
    eq(s.customerId, customerId),
    eq(s.stream, filter.stream),
    isNotNull(s.changedAt),
    filter.reason ? eq(s.reason, filter.reason) : undefined,
    filter.active !== undefined ? eq(s.active, filter.active) : undefined,
    filter.changedSince ? gte(s.changedAt, filter.changedSince) : undefined,
    beforeCursor(s.changedAt, s.id, after),
  );
}

export async function listSuppressions(db: Database, customerId: string, filter: SuppressionFilter, page: { limit: number; after: Cursor | null }) {
  const rows = await db
    .select()
    .from(mailSuppressions)
    .where(where(customerId, filter, page.after))
    .orderBy(desc(mailSuppressions.changedAt), desc(mailSuppressions.id))
    .limit(page.limit + 1);
  const result = toPage(rows.map(listed), page.limit, (row) => ({ at: row.changedAt.toISOString(), id: row.id }));
  return { items: result.items.map(toSuppressionEntryView), paging: result.paging };
}

const CSV_PAGE = 1000;
const CSV_COLUMNS = ["email", "stream", "active", "reason", "reactivatable", "changed_at"] as const;

/**
 * One CSV cell (RFC 4180: quoted when it holds a comma, quote or line break). A cell a spreadsheet would
 * run as a formula (`=`, `+`, `-`, `@`, tab, CR first) gets a leading `'` (OWASP's CSV injection rule).
 */
function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

function csvLine(entry: SuppressionEntry): string {
  return `${CSV_COLUMNS.map((column) => csvCell(String(entry[column]))).join(",")}\r\n`;
}

/** The whole filtered list as CSV, header first, read page by page while the client consumes it. */
export function suppressionsCsv(db: Database, customerId: string, filter: SuppressionFilter): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let after: Cursor | null = null;
  let started = false;
  let done = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(encoder.encode(`${CSV_COLUMNS.join(",")}\r\n`));
        return;
      }
      if (done) return controller.close();
      const rows = await db
        .select()
        .from(mailSuppressions)
        .where(where(customerId, filter, after))
        .orderBy(desc(mailSuppressions.changedAt), desc(mailSuppressions.id))
        .limit(CSV_PAGE);
      const last = rows.at(-1);
      if (rows.length < CSV_PAGE || !last) done = true;
      else after = { at: listed(last).changedAt.toISOString(), id: last.id };
      if (rows.length > 0) controller.enqueue(encoder.encode(rows.map((row) => csvLine(toSuppressionEntryView(listed(row)))).join("")));
      if (done) controller.close();
    },
  });
}
