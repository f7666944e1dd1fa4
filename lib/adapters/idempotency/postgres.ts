import { and, eq, lte } from "drizzle-orm";
import type { Database } from "../../db/client";
import { idempotencyRecords } from "../../db/schema";
import { IDEMPOTENCY_TTL_MS, type ClaimResult, type IdempotencyScope, type IdempotencyStore, type StoredResponse } from "./store";

function whereScope(scope: IdempotencyScope) {
  return and(eq(idempotencyRecords.customerId, scope.customerId), eq(idempotencyRecords.route, scope.route), eq(idempotencyRecords.key, scope.key));
}

export function createPostgresIdempotencyStore(db: Database): IdempotencyStore {
  return {
    async deleteExpired(now) {
      const deleted = await db.delete(idempotencyRecords).where(lte(idempotencyRecords.expiresAt, now)).returning({ key: idempotencyRecords.key });
      return deleted.length;
    },
    async claim(scope, fingerprint, now): Promise<ClaimResult> {
      // An expired record is as good as absent: drop it first so the insert below can claim the key.
      await db.delete(idempotencyRecords).where(and(whereScope(scope), lte(idempotencyRecords.expiresAt, now)));
      const inserted = await db
        .insert(idempotencyRecords)
        .values({ ...scope, fingerprint, createdAt: now, expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS) })
        .onConflictDoNothing()
        .returning({ key: idempotencyRecords.key });
      if (inserted.length > 0) return { kind: "claimed" };
      const [existing] = await db.select().from(idempotencyRecords).where(whereScope(scope));
      if (!existing) return { kind: "in_progress" };
      if (existing.fingerprint !== fingerprint) return { kind: "mismatch" };
      if (existing.responseStatus === null) return { kind: "in_progress" };
      return {
        kind: "replay",
        response: { status: existing.responseStatus, headers: existing.responseHeaders ?? {}, body: existing.responseBody ?? "" },
      };
    },
    async complete(scope, response: StoredResponse, now) {
      await db
        .update(idempotencyRecords)
        .set({
          responseStatus: response.status,
          responseHeaders: response.headers,
          responseBody: response.body,
          expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
        })
        .where(whereScope(scope));
    },
    async release(scope) {
      await db.delete(idempotencyRecords).where(whereScope(scope));
    },
  };
}
