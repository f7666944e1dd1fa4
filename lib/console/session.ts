import { createHmac } from "node:crypto";
import { and, eq, gt, lte } from "drizzle-orm";
import type { Database } from "../db/client";
import { consoleSessions } from "../db/schema";
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

export type ConsoleSession = { id: string; expiresAt: Date; csrfToken: string };

export type SessionKeys = { sign(value: string): string };

export function sessionKeys(adminToken: string): SessionKeys {
  const key = createHmac("sha256", adminToken).update("console-session-v1").digest();
  return { sign: (value) => createHmac("sha256", key).update(value).digest("base64url") };
}

/** The CSRF token of a session: bound to it, so a token from another (or an ended) session is refused. */
function csrfTokenOf(keys: SessionKeys, sessionId: string): string {
  return keys.sign(`csrf:${sessionId}`);
}

export async function openSession(db: Database, clock: Clock, keys: SessionKeys): Promise<{ cookieValue: string; session: ConsoleSession }> {
  const expiresAt = new Date(clock.now().getTime() + SESSION_TTL_MS);
  // Expired rows are swept here rather than by a cron: sign-ins are rare and the delete is indexed.
  await db.delete(consoleSessions).where(lte(consoleSessions.expiresAt, clock.now()));
  const [row] = await db.insert(consoleSessions).values({ expiresAt }).returning({ id: consoleSessions.id });
  if (!row) throw new Error("console session insert returned no row");
  const payload = `${row.id}.${expiresAt.getTime()}`;
  return { cookieValue: `${payload}.${keys.sign(payload)}`, session: { id: row.id, expiresAt, csrfToken: csrfTokenOf(keys, row.id) } };
}

const COOKIE_SHAPE = /^([0-9a-f-]{36})\.(\d{1,15})\.([A-Za-z0-9_-]{43})$/;

export async function readSession(db: Database, clock: Clock, keys: SessionKeys, cookieValue: string | undefined): Promise<ConsoleSession | null> {
  const match = cookieValue ? COOKIE_SHAPE.exec(cookieValue) : null;
  if (!match) return null;
  const [, id, expiry, signature] = match as unknown as [string, string, string, string];
  if (!safeEqual(signature, keys.sign(`${id}.${expiry}`))) return null;
  const now = clock.now();
  if (Number(expiry) <= now.getTime()) return null;
  const [row] = await db
    .select({ id: consoleSessions.id, expiresAt: consoleSessions.expiresAt })
    .from(consoleSessions)
    .where(and(eq(consoleSessions.id, id), gt(consoleSessions.expiresAt, now)));
  return row ? { id: row.id, expiresAt: row.expiresAt, csrfToken: csrfTokenOf(keys, row.id) } : null;
}

export async function endSession(db: Database, sessionId: string): Promise<void> {
  await db.delete(consoleSessions).where(eq(consoleSessions.id, sessionId));
}

export function csrfTokenMatches(session: ConsoleSession, sent: string | undefined): boolean {
  return typeof sent === "string" && safeEqual(sent, session.csrfToken);
}
