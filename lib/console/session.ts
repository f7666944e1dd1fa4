import { createHmac } from "node:crypto";
import { and, eq, gt, isNull, lt, lte, or } from "drizzle-orm";
import type { Database } from "../db/client";
import { consoleSessions, operators } from "../db/schema";
import { safeEqual } from "../core/secrets";
import type { Clock } from "../base/clock";

/**
 * Operator console sessions. The cookie is `<session id>.<expiry ms>.<HMAC-SHA256>`, keyed by a key derived
 * from the operator token, so rotating `ADMIN_TOKEN` ends every session at once. A session is valid while the
 * signature matches, its absolute expiry (`CONSOLE_SESSION_MAX_HOURS` after sign-in) lies ahead, its row exists
 * and its last request is less than `CONSOLE_SESSION_IDLE_MINUTES` ago: sign-out deletes the row, so a copied
 * cookie dies with the session. The cookie is HttpOnly and `SameSite=Strict`; over https it is also `Secure`
 * and named `__Host-console_session` (so `Path=/` and no `Domain`: no sibling host or plain-http page can set
 * or shadow it), over plain http (local use) `console_session` with `Path=/console`.
 */
const SESSION_COOKIE = "console_session";
const HOST_SESSION_COOKIE = "__Host-console_session";

/** The cookie's name and path for a request made over https (`secure`) or plain http. */
export function sessionCookie(secure: boolean): { name: string; path: string } {
  return secure ? { name: HOST_SESSION_COOKIE, path: "/" } : { name: SESSION_COOKIE, path: "/console" };
}

/** How long sessions live: both from the configuration (`CONSOLE_SESSION_IDLE_MINUTES`, `CONSOLE_SESSION_MAX_HOURS`). */
export type SessionPolicy = { idleMs: number; maxMs: number };

export function sessionPolicy(config: { CONSOLE_SESSION_IDLE_MINUTES: number; CONSOLE_SESSION_MAX_HOURS: number }): SessionPolicy {
  return { idleMs: config.CONSOLE_SESSION_IDLE_MINUTES * 60_000, maxMs: config.CONSOLE_SESSION_MAX_HOURS * 3_600_000 };
}

/** `last_seen_at` moves at most this often, so reading pages does not write on every request. */
const SEEN_RESOLUTION_MS = 60_000;

/**
 * `operator` is null for a session opened with the bootstrap or break-glass token. `authenticatedAt`: the
 * sign-in or the latest re-authentication (`reauthenticated`).
 */
export type ConsoleSession = {
  id: string;
  expiresAt: Date;
  authenticatedAt: Date;
  csrfToken: string;
  operator: { id: string; role: (typeof operators.$inferSelect)["role"] } | null;
};

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
  policy: SessionPolicy,
): Promise<{ cookieValue: string; session: ConsoleSession }> {
  const now = clock.now();
  const expiresAt = new Date(now.getTime() + policy.maxMs);
  // Expired and idle rows are swept here rather than by a cron: sign-ins are rare and the deletes are indexed.
  await db.delete(consoleSessions).where(or(lte(consoleSessions.expiresAt, now), lt(consoleSessions.lastSeenAt, new Date(now.getTime() - policy.idleMs))));
  const [row] = await db
    .insert(consoleSessions)
    .values({
      expiresAt,
      lastSeenAt: now,
      authenticatedAt: now,
      operatorId: origin.operatorId,
      userAgent: origin.userAgent?.slice(0, 300) ?? null,
      address: origin.address,
    })
    .returning({ id: consoleSessions.id });
  if (!row) throw new Error("console session insert returned no row");
  const payload = `${row.id}.${expiresAt.getTime()}`;
  const session = { id: row.id, expiresAt, authenticatedAt: now, csrfToken: csrfTokenOf(keys, row.id), operator: null };
  return { cookieValue: `${payload}.${keys.sign(payload)}`, session };
}

const COOKIE_SHAPE = /^([0-9a-f-]{36})\.(\d{1,15})\.([A-Za-z0-9_-]{43})$/;

export async function readSession(
  db: Database,
  clock: Clock,
  keys: SessionKeys,
  cookieValue: string | undefined,
  policy: SessionPolicy,
): Promise<ConsoleSession | null> {
  const match = cookieValue ? COOKIE_SHAPE.exec(cookieValue) : null;
  if (!match) return null;
  const [, id, expiry, signature] = match as unknown as [string, string, string, string];
  if (!safeEqual(signature, keys.sign(`${id}.${expiry}`))) return null;
  const now = clock.now();
  if (Number(expiry) <= now.getTime()) return null;
  // An operator's session lives while the operator is enabled (disabling also deletes the rows).
  const [row] = await db
    .select({
      id: consoleSessions.id,
      expiresAt: consoleSessions.expiresAt,
      lastSeenAt: consoleSessions.lastSeenAt,
      authenticatedAt: consoleSessions.authenticatedAt,
      operatorId: operators.id,
      role: operators.role,
    })
    .from(consoleSessions)
    .leftJoin(operators, eq(operators.id, consoleSessions.operatorId))
    .where(and(eq(consoleSessions.id, id), gt(consoleSessions.expiresAt, now), or(isNull(consoleSessions.operatorId), isNull(operators.disabledAt))));
  if (!row) return null;
  const idleFor = now.getTime() - row.lastSeenAt.getTime();
  if (idleFor >= policy.idleMs) {
    await endSession(db, row.id);
    return null;
  }
  if (idleFor >= SEEN_RESOLUTION_MS) await db.update(consoleSessions).set({ lastSeenAt: now }).where(eq(consoleSessions.id, row.id));
  const operator = row.operatorId && row.role ? { id: row.operatorId, role: row.role } : null;
  return { id: row.id, expiresAt: row.expiresAt, authenticatedAt: row.authenticatedAt, csrfToken: csrfTokenOf(keys, row.id), operator };
}

/** The operator proved who they are again: sensitive actions are open to the session for `CONSOLE_REAUTH_MINUTES`. */
export async function reauthenticated(db: Database, clock: Clock, sessionId: string): Promise<Date> {
  const now = clock.now();
  await db.update(consoleSessions).set({ authenticatedAt: now, lastSeenAt: now }).where(eq(consoleSessions.id, sessionId));
  return now;
}

export async function endSession(db: Database, sessionId: string): Promise<void> {
  await db.delete(consoleSessions).where(eq(consoleSessions.id, sessionId));
}

export function csrfTokenMatches(session: ConsoleSession, sent: string | undefined): boolean {
  return typeof sent === "string" && safeEqual(sent, session.csrfToken);
}
