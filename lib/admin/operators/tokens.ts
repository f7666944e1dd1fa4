import { randomBytes } from "node:crypto";
import { and, desc, eq, isNull, lt, or } from "drizzle-orm";
import type { Clock } from "../../base/clock";
import { sha256Hex } from "../../core/secrets";
import type { Database } from "../../db/client";
import { operators, operatorTokens } from "../../db/schema";
import type { OperatorRole } from "./accounts";
import type { z } from "@hono/zod-openapi";
import type { OperatorToken } from "./schema";

/**
 * Per-operator API tokens: `op_live_` + 32 random base64url characters, shown once, stored as SHA-256 with
 * the first 12 characters visible. A token works while it is not revoked and its operator is enabled; it
 * acts with the operator's current role. `last_used_at` is written at most once a minute per token (a
 * conditional update), so automation does not turn every read into a write.
 */
export const OPERATOR_TOKEN_PREFIX = "op_live_";
const VISIBLE = 12;
const LAST_USED_RESOLUTION_MS = 60_000;

export type OperatorTokenView = z.infer<typeof OperatorToken>;

function toTokenView(row: typeof operatorTokens.$inferSelect): OperatorTokenView {
  return {
    id: row.id,
    operator_id: row.operatorId,
    label: row.label,
    prefix: row.prefix,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    revoked_at: row.revokedAt?.toISOString() ?? null,
  };
}

export async function issueOperatorToken(db: Database, operatorId: string, label: string): Promise<OperatorTokenView & { token: string }> {
  const token = OPERATOR_TOKEN_PREFIX + randomBytes(24).toString("base64url");
  const [row] = await db
    .insert(operatorTokens)
    .values({ operatorId, label, prefix: token.slice(0, VISIBLE), hash: sha256Hex(token) })
    .returning();
  if (!row) throw new Error("operator token insert returned nothing");
  return { ...toTokenView(row), token };
}

export async function listOperatorTokens(db: Database, operatorId: string): Promise<OperatorTokenView[]> {
  const rows = await db.select().from(operatorTokens).where(eq(operatorTokens.operatorId, operatorId)).orderBy(desc(operatorTokens.createdAt));
  return rows.map(toTokenView);
}

/** Revokes one of the operator's tokens (revoking twice keeps the first time); null when it is not theirs. */
export async function revokeOperatorToken(db: Database, clock: Clock, operatorId: string, tokenId: string): Promise<OperatorTokenView | null> {
  const [revoked] = await db
    .update(operatorTokens)
    .set({ revokedAt: clock.now() })
    .where(and(eq(operatorTokens.id, tokenId), eq(operatorTokens.operatorId, operatorId), isNull(operatorTokens.revokedAt)))
    .returning();
  if (revoked) return toTokenView(revoked);
  const [row] = await db
    .select()
    .from(operatorTokens)
    .where(and(eq(operatorTokens.id, tokenId), eq(operatorTokens.operatorId, operatorId)));
  return row ? toTokenView(row) : null;
}

/** The operator behind a token, when it is live and its operator enabled. */
export async function authenticateOperatorToken(
  db: Database,
  clock: Clock,
  token: string,
): Promise<{ operatorId: string; tokenId: string; role: OperatorRole } | null> {
  const [row] = await db
    .select({ tokenId: operatorTokens.id, operatorId: operators.id, role: operators.role })
    .from(operatorTokens)
    .innerJoin(operators, eq(operators.id, operatorTokens.operatorId))
    .where(and(eq(operatorTokens.hash, sha256Hex(token)), isNull(operatorTokens.revokedAt), isNull(operators.disabledAt)));
  if (!row) return null;
  const now = clock.now();
  await db
    .update(operatorTokens)
    .set({ lastUsedAt: now })
    .where(
      and(
        eq(operatorTokens.id, row.tokenId),
        or(isNull(operatorTokens.lastUsedAt), lt(operatorTokens.lastUsedAt, new Date(now.getTime() - LAST_USED_RESOLUTION_MS))),
      ),
    );
  return row;
}

/** Why a presented `op_live_` token opened nothing, for the audit log's refusal entry. */
export async function whyTokenRefused(db: Database, token: string): Promise<"revoked_token" | "disabled_operator" | "unknown_token"> {
  const [row] = await db
    .select({ revokedAt: operatorTokens.revokedAt, disabledAt: operators.disabledAt })
    .from(operatorTokens)
    .innerJoin(operators, eq(operators.id, operatorTokens.operatorId))
    .where(eq(operatorTokens.hash, sha256Hex(token)));
  if (!row) return "unknown_token";
  return row.revokedAt ? "revoked_token" : row.disabledAt ? "disabled_operator" : "unknown_token";
}
