import type { Database } from "../db/client";
import { auditLog } from "../db/schema";
import type { Clock } from "../base/clock";
import type { Logger } from "../base/logger";
import type { OperatorActor } from "./principal";

/**
 * The audit log's record of refusals on the operator side: a presented operator token that is unknown or
 * revoked (401), a throttled sign-in or credential (429), a CSRF or cross-origin refusal and a role or
 * re-authentication refusal (403). Each entry names the reason, the credential's visible prefix (never the
 * credential) and the client address.
 *
 * An attacker controls how often refusals happen, so they cannot be one row each: identical refusals (same
 * operation, status, reason, prefix, address and actor) within one clock minute are one entry. The first is
 * written at once (an operator watching an attack sees it at once); the others are counted in memory and
 * written as one entry whose `count` says how many it stands for, when the minute is over (the next refusal
 * after it, the minute timer, or `flush`). At most `MAX_KEYS` different refusals are told apart per minute;
 * beyond that, refusals are counted per operation, status and reason only (address and prefix "many"), so a
 * flood of distinct tokens or addresses writes a bounded number of rows. The counting is per instance: with
 * several instances each writes its own entries for the same minute.
 */
export type Refusal = {
  operationId: string;
  method: string;
  path: string;
  /** The status answered: 422 for a wrong password or code at re-authentication (the session stays valid). */
  status: 401 | 403 | 422 | 429;
  /** One word: `unknown_token`, `revoked_token`, `csrf_token`, `cross_origin`, `role_required`, `sign_in_backoff`, … */
  reason: string;
  /** The visible start of a presented credential (`tokenPrefix`), or null when none was presented. */
  tokenPrefix: string | null;
  address: string | null;
  actor: Pick<OperatorActor, "type" | "operatorId" | "tokenId"> | { type: "anonymous"; operatorId: null; tokenId: null };
  customerId?: string | null;
  target?: Record<string, string>;
  requestId: string;
};

export type RefusalAudit = {
  record(refusal: Refusal): Promise<void>;
  /** Writes every refusal counted but not written yet (tests, shutdown). */
  flush(): Promise<void>;
};

const WINDOW_MS = 60_000;
const REFUSAL_AUDIT_MAX_KEYS = 200;

/**
 * The visible start of a presented credential: a typed token (`op_live_…`, `mk_live_…`) to the 4 characters
 * after its type, as token lists show it; anything else (a guess at the shared `ADMIN_TOKEN`, which a typo
 * would otherwise half give away) to its first 4 characters only.
 */
export function tokenPrefix(token: string): string {
  const typed = /^[a-z]{2,8}_[a-z]{2,8}_/.exec(token);
  return typed ? token.slice(0, typed[0].length + 4) : `${token.slice(0, 4)}…`;
}

type Pending = { window: number; refusal: Refusal; lastAt: Date; more: number };

export function createRefusalAudit(db: Database, clock: Clock, logger: Logger): RefusalAudit {
  const pending = new Map<string, Pending>();

  const write = async (refusal: Refusal, at: Date, count: number) => {
    await db
      .insert(auditLog)
      .values({
        at,
        actorType: refusal.actor.type,
        operatorId: refusal.actor.operatorId,
        tokenId: refusal.actor.tokenId,
        operationId: refusal.operationId,
        method: refusal.method,
        path: refusal.path.slice(0, 2000),
        status: refusal.status,
        customerId: refusal.customerId ?? null,
        target: refusal.target ?? {},
        requestId: refusal.requestId,
        change: null,
        address: refusal.address,
        reason: refusal.reason,
        tokenPrefix: refusal.tokenPrefix,
        count,
      })
      .catch((error: unknown) => logger.error("audit entry not written", { operation: refusal.operationId, reason: refusal.reason, error: String(error) }));
  };

  /** Writes the counted repeats of every minute that is over (all of them when `all`). */
  const settle = async (all: boolean) => {
    const window = Math.floor(clock.now().getTime() / WINDOW_MS);
    const done: Pending[] = [];
    for (const [key, entry] of pending) {
      if (!all && entry.window >= window) continue;
      pending.delete(key);
      if (entry.more > 0) done.push(entry);
    }
    for (const entry of done) await write(entry.refusal, entry.lastAt, entry.more);
  };

  const timer = setInterval(() => void settle(false), WINDOW_MS);
  timer.unref?.();

  return {
    async record(refusal) {
      await settle(false);
      const now = clock.now();
      const window = Math.floor(now.getTime() / WINDOW_MS);
      const { type, operatorId, tokenId } = refusal.actor;
      let key = [refusal.operationId, refusal.status, refusal.reason, refusal.tokenPrefix, refusal.address, type, operatorId, tokenId].join("|");
      let entry = refusal;
      if (!pending.has(key) && pending.size >= REFUSAL_AUDIT_MAX_KEYS) {
        key = [refusal.operationId, refusal.status, refusal.reason, "many"].join("|");
        entry = { ...refusal, tokenPrefix: refusal.tokenPrefix === null ? null : "many", address: "many", target: { ...refusal.target, aggregated: "many" } };
      }
      const seen = pending.get(key);
      if (seen) {
        seen.more += 1;
        seen.lastAt = now;
        return;
      }
      pending.set(key, { window, refusal: entry, lastAt: now, more: 0 });
      await write(entry, now, 1);
    },
    flush: () => settle(true),
  };
}
