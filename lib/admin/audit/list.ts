import { and, desc, eq, gte, lt, type SQL } from "drizzle-orm";
import { beforeCursor, type Cursor, toPage } from "../../core/pagination";
import type { Database } from "../../db/client";
import { auditLog } from "../../db/schema";
import type { AuditEntry } from "./schema";
import type { z } from "@hono/zod-openapi";

export type AuditFilter = { customerId?: string; operatorId?: string; operationId?: string; from?: Date; to?: Date };

type AuditEntryView = z.infer<typeof AuditEntry>;

function toAuditEntryView(row: typeof auditLog.$inferSelect): AuditEntryView {
  return {
    id: row.id,
    at: row.at.toISOString(),
    actor: { type: row.actorType, operator_id: row.operatorId, token_id: row.tokenId },
    operation_id: row.operationId,
    method: row.method,
    path: row.path,
    status: row.status,
    customer_id: row.customerId,
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
  return toPage(rows.map(toAuditEntryView), page.limit, (entry) => ({ at: entry.at, id: entry.id }));
}
