import type { Database } from "../../db/client";
import { auditLog } from "../../db/schema";
import type { OperatorActor } from "../../core/principal";

/**
 * Writing audit entries. Invariant: entries are only ever inserted; the table's trigger (migration 0022)
 * refuses UPDATE, DELETE and TRUNCATE, except the retention purge (`retention.ts`).
 */
export type AuditEntryInput = {
  at: Date;
  actor: Pick<OperatorActor, "type" | "operatorId" | "tokenId"> | { type: "anonymous"; operatorId: null; tokenId: null };
  operationId: string;
  method: string;
  path: string;
  status: number;
  customerId: string | null;
  target: Record<string, string>;
  requestId: string;
  change: Record<string, unknown> | null;
  address: string | null;
  /** Why the request was refused (`role_required`, `reauthentication_required`, …); absent when it was not. */
  reason?: string | null;
};

export async function recordAuditEntry(db: Database, entry: AuditEntryInput): Promise<void> {
  await db.insert(auditLog).values({
    at: entry.at,
    actorType: entry.actor.type,
    operatorId: entry.actor.operatorId,
    tokenId: entry.actor.tokenId,
    operationId: entry.operationId,
    method: entry.method,
    path: entry.path.slice(0, 2000),
    status: entry.status,
    customerId: entry.customerId,
    target: entry.target,
    requestId: entry.requestId,
    change: entry.change,
    address: entry.address,
    reason: entry.reason ?? null,
  });
}

const SECRET_NAME = /(token|secret|password|credential|authorization)(?!_set$)|^key$/i;
const URL_WITH_USER = /^([a-z][a-z0-9+.-]*:\/\/)[^/@\s]+@/i;

/** A value with every secret replaced by "changed" (names like token/secret/password, `key`, URLs with credentials). */
function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([name, v]) => [name, SECRET_NAME.test(name) && v !== null ? "changed" : redact(v)]));
  }
  if (typeof value === "string" && URL_WITH_USER.test(value)) return value.replace(URL_WITH_USER, "$1changed@");
  return value;
}

/** Entries stay small: a change larger than this keeps its shape but not its values. */
const MAX_CHANGE_CHARS = 32_000;

/**
 * `{ request, before, after }` of a write: the request body, and of the resource only what differs between
 * before and after (both from the API's own views, so secrets are absent or write-only flags already); every
 * secret redacted to "changed".
 */
export function describeChange(request: unknown, before: unknown, after: unknown): Record<string, unknown> | null {
  const change: Record<string, unknown> = {};
  if (request !== undefined && request !== null) change.request = redact(request);
  if (before !== undefined && after !== undefined) {
    const [b, a] = difference(before, after);
    change.before = redact(b);
    change.after = redact(a);
  } else if (after !== undefined) {
    change.after = redact(after);
  }
  if (Object.keys(change).length === 0) return null;
  const text = JSON.stringify(change);
  return text.length <= MAX_CHANGE_CHARS ? change : { truncated: true, chars: text.length, fields: Object.keys(change) };
}

/** The parts of two JSON values that differ (objects key by key; anything else as a whole). */
function difference(before: unknown, after: unknown): [unknown, unknown] {
  const isObject = (v: unknown): v is Record<string, unknown> => Boolean(v) && typeof v === "object" && !Array.isArray(v);
  if (!isObject(before) || !isObject(after)) return JSON.stringify(before) === JSON.stringify(after) ? [undefined, undefined] : [before, after];
  const b: Record<string, unknown> = {};
  const a: Record<string, unknown> = {};
  for (const name of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (name === "updated_at") continue;
    const [db, da] = difference(before[name], after[name]);
    if (db !== undefined || da !== undefined) {
      b[name] = db ?? null;
      a[name] = da ?? null;
    }
  }
  return [b, a];
}
