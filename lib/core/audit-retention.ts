import { lt, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { auditLog } from "../db/schema";

/** Audit entries are kept 400 days (the table's trigger lets nothing younger go, whatever the caller asks). */
const AUDIT_RETENTION_DAYS = 400;

/**
 * The retention purge, the one delete the audit log's trigger allows: inside a transaction that says
 * `app.audit_retention = 'purge'`, and only of entries older than 400 days.
 */
export async function purgeExpiredAuditEntries(db: Database, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - AUDIT_RETENTION_DAYS * 24 * 60 * 60 * 1000);
  return db.transaction(async (tx) => {
    await tx.execute(sql`select set_config('app.audit_retention', 'purge', true)`);
    const deleted = await tx.delete(auditLog).where(lt(auditLog.at, cutoff)).returning({ id: auditLog.id });
    return deleted.length;
  });
}
