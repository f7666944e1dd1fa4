import { and, desc, eq, gte, inArray, lt, sql, type SQL } from "drizzle-orm";
import { beforeCursor, type Cursor, toPage } from "../../core/pagination";
import type { Database } from "../../db/client";
import { auditLog, customers, operators } from "../../db/schema";
import type { AuditEntry } from "./schema";
import type { z } from "@hono/zod-openapi";

export type AuditFilter = {
  customerId?: string;
  /** A customer's name as it is now, any case: entries about every customer of that name (names need not be unique). */
  customerName?: string;
  operatorId?: string;
  /** An operator's e-mail as it is now, any case (e-mails are stored lower-case). */
  operatorEmail?: string;
  operationId?: string;
  from?: Date;
  to?: Date;
};

type AuditEntryView = z.infer<typeof AuditEntry>;

type Names = { operators: Map<string, string>; customers: Map<string, string> };

function toAuditEntryView(row: typeof auditLog.$inferSelect, names: Names): AuditEntryView {
  return {
    id: row.id,
    at: row.at.toISOString(),
    actor: {
      type: row.actorType,
      operator_id: row.operatorId,
      email: row.operatorId ? (names.operators.get(row.operatorId) ?? null) : null,
      token_id: row.tokenId,
    },
    operation_id: row.operationId,
    method: row.method,
    path: row.path,
    status: row.status,
    customer_id: row.customerId,
    customer_name: row.customerId ? (names.customers.get(row.customerId) ?? null) : null,
    target: row.target,
    request_id: row.requestId,
    change: row.change,
    address: row.address,
    reason: row.reason,
    token_prefix: row.tokenPrefix,
    count: row.count,
  };
}

/** Newest first, keyset-paged on (at, id); `from` inclusive, `to` exclusive. */
export async function listAuditEntries(db: Database, filter: AuditFilter, page: { limit: number; after: Cursor | null }) {
  const conditions: (SQL | undefined)[] = [
    filter.customerId ? eq(auditLog.customerId, filter.customerId) : undefined,
    filter.operatorId ? eq(auditLog.operatorId, filter.operatorId) : undefined,
    // Names are resolved to ids inside the query: a name nobody has matches no entry (an empty page, as an unknown id).
    filter.customerName
      ? inArray(auditLog.customerId, db.select({ id: customers.id }).from(customers).where(sql`lower(${customers.name}) = lower(${filter.customerName})`))
      : undefined,
    filter.operatorEmail
      ? inArray(auditLog.operatorId, db.select({ id: operators.id }).from(operators).where(eq(operators.email, filter.operatorEmail.toLowerCase())))
      : undefined,
    filter.operationId ? eq(auditLog.operationId, filter.operationId) : undefined,
    filter.from ? gte(auditLog.at, filter.from) : undefined,
    filter.to ? lt(auditLog.at, filter.to) : undefined,
    beforeCursor(auditLog.at, auditLog.id, page.after),
  ];
  const rows = await db
    .select()
    .from(auditLog)
    .where(and(...conditions))
    .orderBy(desc(auditLog.at), desc(auditLog.id))
    .limit(page.limit + 1);
  const names = await namesOf(db, rows);
  return toPage(
    rows.map((row) => toAuditEntryView(row, names)),
    page.limit,
    (entry) => ({ at: entry.at, id: entry.id }),
  );
}

/** The operators' e-mails and the customers' names a page of entries mentions (operators are never deleted; a deleted customer has none). */
async function namesOf(db: Database, rows: (typeof auditLog.$inferSelect)[]): Promise<Names> {
  const operatorIds = [...new Set(rows.flatMap((r) => (r.operatorId ? [r.operatorId] : [])))];
  const customerIds = [...new Set(rows.flatMap((r) => (r.customerId ? [r.customerId] : [])))];
  const [ops, custs] = await Promise.all([
    operatorIds.length === 0 ? [] : db.select({ id: operators.id, email: operators.email }).from(operators).where(inArray(operators.id, operatorIds)),
    customerIds.length === 0 ? [] : db.select({ id: customers.id, name: customers.name }).from(customers).where(inArray(customers.id, customerIds)),
  ]);
  return { operators: new Map(ops.map((o) => [o.id, o.email])), customers: new Map(custs.map((c) => [c.id, c.name])) };
}
