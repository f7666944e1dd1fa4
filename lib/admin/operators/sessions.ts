import { and, desc, eq, gt } from "drizzle-orm";
import type { Clock } from "../../base/clock";
import type { Database } from "../../db/client";
import { consoleSessions } from "../../db/schema";
import type { z } from "@hono/zod-openapi";
import type { OperatorSession } from "../me/schema";

/** An operator's open console sessions (the console opens and reads them, `lib/console/session.ts`). */
export type OperatorSessionView = z.infer<typeof OperatorSession>;

export async function listOperatorSessions(db: Database, clock: Clock, operatorId: string, currentId: string | null): Promise<OperatorSessionView[]> {
  const rows = await db
    .select()
    .from(consoleSessions)
    .where(and(eq(consoleSessions.operatorId, operatorId), gt(consoleSessions.expiresAt, clock.now())))
    .orderBy(desc(consoleSessions.createdAt));
  return rows.map((row) => ({
    id: row.id,
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
    user_agent: row.userAgent,
    address: row.address,
    current: row.id === currentId,
  }));
}

/** Ends one of the operator's sessions; false when it is not theirs (or gone already). */
export async function revokeOperatorSession(db: Database, operatorId: string, sessionId: string): Promise<boolean> {
  const deleted = await db
    .delete(consoleSessions)
    .where(and(eq(consoleSessions.id, sessionId), eq(consoleSessions.operatorId, operatorId)))
    .returning({ id: consoleSessions.id });
  return deleted.length > 0;
}
