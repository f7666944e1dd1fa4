import { createHmac } from "node:crypto";
import { and, eq, gt, isNull, lte, or } from "drizzle-orm";
import type { Database } from "../db/client";
import { consoleSessions, operators } from "../db/schema";
import { safeEqual } from "../core/secrets";
import type { Clock } from "../core/clock";

/**
 * Operator console sessions. The cookie is `<session id>.<expiry ms>.<HMAC-SHA256>`, keyed by a key derived
 * from the operator token, so rotating `ADMIN_TOKEN` ends every session at once. A session is valid while the
 * signature matches, the expiry lies ahead and its row exists: sign-out deletes the row, so a copied cookie
 * dies with the session. The cookie is HttpOnly, `SameSite=Strict`, `Path=/console` and `Secure` over https.
 */
export const SESSION_COOKIE = "console_session";
export const SESSION_TTL_MS = 8 * 60 * 60 * 1000;

/** `operator` is null for a session opened with the bootstrap or break-glass token. */
export type ConsoleSession = { id: string; expiresAt: Date; csrfToken: string; operator: { id: string; role: (typeof operators.$inferSelect)["role"] } | null };

/** Who signs in and from where (kept on the row for the operator's "my sessions" list). */
export type SessionOrigin = { operatorId: string | null; userAgent: string | null; address: string | null };

export type SessionKeys = { sign(value: string): string };

export function sessionKeys(adminToken: string): SessionKeys {
  const key = createHmac("sha256", adminToken).update("console-session-v1").digest();
  return { sign: (value) => createHmac("sha256", key).update(value).digest("base64url") };
}

/** The CSRF token of a session: bound to it, so a token from another (or an ended) session is refused. */
function csrfTokenOf(keys: SessionKeys, sessionId: string): string {
  return keys.sign(`csrf:${sessionId}`);
}

export async function openSession(
  db: Database,
  clock: Clock,
  keys: SessionKeys,
  origin: SessionOrigin,
): Promise<{ cookieValue: string; session: ConsoleSession }> {
  const expiresAt = new Date(clock.now().getTime() + SESSION_TTL_MS);
  // Expired rows are swept here rather than by a cron: sign-ins are rare and the delete is indexed.
  await db.delete(consoleSessions).where(lte(consoleSessions.expiresAt, clock.now()));
  const [row] = await db
    .insert(consoleSessions)
    .values({ expiresAt, operatorId: origin.operatorId, userAgent: origin.userAgent?.slice(0, 300) ?? null, address: origin.address })
    .returning({ id: consoleSessions.id });
  if (!row) throw new Error("console session insert returned no row");
  const payload = `${row.id}.${expiresAt.getTime()}`;
  const session = { id: row.id, expiresAt, csrfToken: csrfTokenOf(keys, row.id), operator: null };
  return { cookieValue: `${payload}.${keys.sign(payload)}`, session };
}

const COOKIE_SHAPE = /^([0-9a-f-]{36})\.(\d{1,15})\.([A-Za-z0-9_-]{43})$/;

export async function readSession(db: Database, clock: Clock, keys: SessionKeys, cookieValue: string | undefined): Promise<ConsoleSession | null> {
  const match = cookieValue ? COOKIE_SHAPE.exec(cookieValue) : null;
  if (!match) return null;
  const [, id, expiry, signature] = match as unknown as [string, string, string, string];
  if (!safeEqual(signature, keys.sign(`${id}.${expiry}`))) return null;
  const now = clock.now();
  if (Number(expiry) <= now.getTime()) return null;
  // An operator's session lives while the operator is enabled (disabling also deletes the rows).
  const [row] = await db
    .select({ id: consoleSessions.id, expiresAt: consoleSessions.expiresAt, operatorId: operators.id, role: operators.role })
    .from(consoleSessions)
    .leftJoin(operators, eq(operators.id, consoleSessions.operatorId))
    .where(and(eq(consoleSessions.id, id), gt(consoleSessions.expiresAt, now), or(isNull(consoleSessions.operatorId), isNull(operators.disabledAt))));
  if (!row) return null;
  const operator = row.operatorId && row.role ? { id: row.operatorId, role: row.role } : null;
  return { id: row.id, expiresAt: row.expiresAt, csrfToken: csrfTokenOf(keys, row.id), operator };
}

export async function endSession(db: Database, sessionId: string): Promise<void> {
  await db.delete(consoleSessions).where(eq(consoleSessions.id, sessionId));
}

export function csrfTokenMatches(session: ConsoleSession, sent: string | undefined): boolean {
  return typeof sent === "string" && safeEqual(sent, session.csrfToken);
}
