import { randomBytes } from "node:crypto";
import { and, desc, eq, isNull, lt, or, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { adsSettings, apiKeys, customers, mailSettings } from "../db/schema";
import type { Principal, Scope } from "./principal";
import { sha256Hex } from "./secrets";

export type KeyService = "mail" | "ads";

const PREFIX: Record<KeyService, string> = { mail: "mk_live_", ads: "ak_live_" };
const VISIBLE_PREFIX_LENGTH = 12;
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

export type ApiKeyRecord = {
  id: string;
  customer_id: string;
  prefix: string;
  service: KeyService;
  scope: Scope;
  label: string | null;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
};

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
  const key = PREFIX[input.service] + randomBase62(32);
  const [row] = await db
    .insert(apiKeys)
    .values({ ...input, label: input.label ?? null, prefix: key.slice(0, VISIBLE_PREFIX_LENGTH), hash: sha256Hex(key) })
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
    .where(and(eq(apiKeys.id, row.key.id), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, sql`now() - interval '1 minute'`))));
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
