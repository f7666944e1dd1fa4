import { randomBytes } from "node:crypto";
import { and, desc, eq, isNull, lt, or, type SQL, sql } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import type { Clock } from "../base/clock";
import type { Database } from "../db/client";
import { adsSettings, apiKeys, customers, mailSettings, operators, operatorTokens } from "../db/schema";
import type { z } from "@hono/zod-openapi";
import type { ApiKey, OperatorToken } from "./key-schemas";
import type { Principal, Scope } from "./principal";
import { sha256Hex } from "./secrets";

/*
 * Every bearer credential this service issues, by its owner's kind: a customer's API key for one service
 * (`mail`, `ads`) or an operator's token (`operator`). Each is its owner kind's prefix and a random body,
 * shown once, stored as its SHA-256 with the first 12 characters visible so people can tell them apart;
 * it works until revoked; its `last_used_at` moves at most once a minute, so automation does not turn every
 * read into a write. The stored formats differ by owner kind (base62 bodies for customer keys, base64url for
 * operator tokens) and stay as issued.
 */

export type KeyService = "mail" | "ads";
/** Who a credential belongs to: a customer (a key for one service) or an operator. */
type KeyOwner = KeyService | "operator";

const PREFIXES: Record<KeyOwner, string> = { mail: "mk_live_", ads: "ak_live_", operator: "op_live_" };
const VISIBLE_PREFIX_LENGTH = 12;
const LAST_USED_RESOLUTION_MS = 60_000;
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

function randomBase62(length: number): string {
  // 248 = 4 × 62: rejecting bytes ≥ 248 keeps every character equally likely.
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** A new credential of the owner kind: the secret (shown once), its visible prefix and the hash that is stored. */
function mintKey(owner: KeyOwner): { secret: string; prefix: string; hash: string } {
  const body = owner === "operator" ? randomBytes(24).toString("base64url") : randomBase62(32);
  const secret = PREFIXES[owner] + body;
  return { secret, prefix: secret.slice(0, VISIBLE_PREFIX_LENGTH), hash: sha256Hex(secret) };
}

/** Whether a presented bearer has the operator-token form (it may still be unknown or revoked). */
export function isOperatorToken(bearer: string): boolean {
  return bearer.startsWith(PREFIXES.operator);
}

/** The row's last use is older than the resolution (or never): only then is it written again. */
function lastUseOutdated(column: PgColumn, now: Date | SQL): SQL | undefined {
  const before = now instanceof Date ? new Date(now.getTime() - LAST_USED_RESOLUTION_MS) : sql`${now} - interval '1 minute'`;
  return or(isNull(column), lt(column, before));
}

export type ApiKeyRecord = z.infer<typeof ApiKey>;

function toApiKeyView(row: typeof apiKeys.$inferSelect): ApiKeyRecord {
  return {
    id: row.id,
    customer_id: row.customerId,
    prefix: row.prefix,
    service: row.service,
    scope: row.scope,
    label: row.label,
    created_at: row.createdAt.toISOString(),
    revoked_at: row.revokedAt?.toISOString() ?? null,
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
  };
}

/** Creates a key; the plaintext is returned here once and only its SHA-256 is stored. */
export async function issueApiKey(
  db: Database,
  input: { customerId: string; service: KeyService; scope: Scope; label?: string | null | undefined },
): Promise<ApiKeyRecord & { key: string }> {
  const { secret: key, prefix, hash } = mintKey(input.service);
  const [row] = await db
    .insert(apiKeys)
    .values({ ...input, label: input.label ?? null, prefix, hash })
    .returning();
  if (!row) throw new Error("api key insert returned nothing");
  return { ...toApiKeyView(row), key };
}

export async function listApiKeys(db: Database, customerId: string): Promise<ApiKeyRecord[]> {
  const rows = await db.select().from(apiKeys).where(eq(apiKeys.customerId, customerId)).orderBy(desc(apiKeys.createdAt));
  return rows.map(toApiKeyView);
}

/** Revokes a key; returns null when there is no such key (already revoked keys stay revoked). */
export async function revokeApiKey(db: Database, keyId: string, now: Date): Promise<ApiKeyRecord | null> {
  const [updated] = await db
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)))
    .returning();
  if (updated) return toApiKeyView(updated);
  const [existing] = await db.select().from(apiKeys).where(eq(apiKeys.id, keyId));
  return existing ? toApiKeyView(existing) : null;
}

/**
 * Recently authenticated keys, so a request does not pay a database round trip for its key (PGlite
 * answers in ~0.2 ms, a remote Postgres in more). Entries live `ttlMs`; the admin API drops a
 * customer's entries when it revokes a key or changes settings, so on this instance a change applies
 * to the next request, and on other instances within `ttlMs`.
 */
export class PrincipalCache {
  readonly #entries = new Map<string, { principal: Principal; expiresAt: number }>();
  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly now: () => number,
  ) {}

  get(hash: string): Principal | null {
    const entry = this.#entries.get(hash);
    if (!entry) return null;
    if (entry.expiresAt <= this.now()) {
      this.#entries.delete(hash);
      return null;
    }
    return entry.principal;
  }

  set(hash: string, principal: Principal): void {
    if (this.#entries.size >= this.maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    this.#entries.set(hash, { principal, expiresAt: this.now() + this.ttlMs });
  }

  invalidateCustomer(customerId: string): void {
    for (const [hash, entry] of this.#entries) if (entry.principal.customerId === customerId) this.#entries.delete(hash);
  }
}

/**
 * Resolves a bearer key to its principal. Unknown, revoked and wrong-service keys all take the same
 * path (one indexed lookup by hash, then checks on the row), so timing does not tell them apart.
 */
export async function authenticateApiKey(db: Database, rawKey: string, service: KeyService, cache?: PrincipalCache): Promise<Principal | null> {
  const hash = sha256Hex(rawKey);
  const cached = cache?.get(hash);
  if (cached) return cached.service === service ? cached : null;
  const [row] = await db
    .select({ key: apiKeys, customerName: customers.name, mail: mailSettings, ads: adsSettings })
    .from(apiKeys)
    .innerJoin(customers, eq(customers.id, apiKeys.customerId))
    .leftJoin(mailSettings, eq(mailSettings.customerId, apiKeys.customerId))
    .leftJoin(adsSettings, eq(adsSettings.customerId, apiKeys.customerId))
    .where(eq(apiKeys.hash, hash));
  if (!row || row.key.revokedAt !== null) return null;
  // Last use, to the minute: a conditional write on the (cache-missing) database read, a no-op within the minute.
  await db
    .update(apiKeys)
    .set({ lastUsedAt: sql`now()` })
    .where(and(eq(apiKeys.id, row.key.id), lastUseOutdated(apiKeys.lastUsedAt, sql`now()`)));
  const principal: Principal = {
    keyId: row.key.id,
    customerId: row.key.customerId,
    customerName: row.customerName,
    service: row.key.service,
    scope: row.key.scope,
    mail: row.mail
      ? { sendingBlocked: row.mail.sendingBlocked, mode: row.mail.mode, monthlyLimit: row.mail.monthlyLimit, maxPerJob: row.mail.maxPerJob }
      : null,
    ads: row.ads ? { accountState: row.ads.accountState, stage: row.ads.stage, enterpriseIncludedAds: row.ads.enterpriseIncludedAds } : null,
  };
  cache?.set(hash, principal);
  return principal.service === service ? principal : null;
}

export type OperatorTokenRecord = z.infer<typeof OperatorToken>;
type OperatorRole = (typeof operators.$inferSelect)["role"];

function toTokenView(row: typeof operatorTokens.$inferSelect): OperatorTokenRecord {
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

export async function issueOperatorToken(db: Database, operatorId: string, label: string): Promise<OperatorTokenRecord & { token: string }> {
  const { secret: token, prefix, hash } = mintKey("operator");
  const [row] = await db.insert(operatorTokens).values({ operatorId, label, prefix, hash }).returning();
  if (!row) throw new Error("operator token insert returned nothing");
  return { ...toTokenView(row), token };
}

export async function listOperatorTokens(db: Database, operatorId: string): Promise<OperatorTokenRecord[]> {
  const rows = await db.select().from(operatorTokens).where(eq(operatorTokens.operatorId, operatorId)).orderBy(desc(operatorTokens.createdAt));
  return rows.map(toTokenView);
}

/** Revokes one of the operator's tokens (revoking twice keeps the first time); null when it is not theirs. */
export async function revokeOperatorToken(db: Database, clock: Clock, operatorId: string, tokenId: string): Promise<OperatorTokenRecord | null> {
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
    .where(and(eq(operatorTokens.id, row.tokenId), lastUseOutdated(operatorTokens.lastUsedAt, now)));
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
