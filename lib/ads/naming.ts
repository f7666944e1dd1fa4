import { z } from "@hono/zod-openapi";
import { eq, sql } from "drizzle-orm";
import type { Database, Tx } from "../db/client";
import { adsAccounts, adsNameSequences } from "../db/schema";

/**
 * The naming convention of ad sets and ads. Tokens: `{target}` (target key), `{date}` (UTC day of
 * creation, `YYYYMMDD`), `{seq}` (counter, at least three digits) and, for ads, `{adset}` (the ad set's
 * name). `{seq}` counts per distinct rest of the name, so every pattern containing it yields unique names:
 * `demo-20260115-001`, `demo-20260115-002`, the next day `demo-20260116-001`.
 */
const DEFAULT_AD_SET_NAME_PATTERN = "{target}-{date}-{seq}";
const DEFAULT_AD_NAME_PATTERN = "{adset}-ad{seq}";

export const AD_SET_NAME_TOKENS = ["target", "date", "seq"] as const;
export const AD_NAME_TOKENS = ["adset", "target", "date", "seq"] as const;

/** The naming convention as the operator reads it (`/v1/customers/{id}/ads/naming` of the admin API). */
export const AdsNaming = z
  .object({
    adset_pattern: z.string().openapi({ description: "Pattern of ad set names.", example: "{target}-{date}-{seq}" }),
    ad_pattern: z.string().openapi({ description: "Pattern of ad names (when the customer gives none).", example: "{adset}-ad{seq}" }),
    adset_pattern_is_default: z.boolean().openapi({ description: "Whether the default ad set pattern applies.", example: true }),
    ad_pattern_is_default: z.boolean().openapi({ description: "Whether the default ad pattern applies.", example: true }),
  })
  .openapi("AdsNaming");

export type NamingView = z.infer<typeof AdsNaming>;

/** Problems with a pattern, empty when it is usable. */
export function patternProblems(pattern: string, tokens: readonly string[]): string[] {
  const problems: string[] = [];
  const used = [...pattern.matchAll(/\{([^{}]*)\}/g)].map((match) => match[1] ?? "");
  for (const token of used) if (!tokens.includes(token)) problems.push(`Unknown token {${token}}; allowed: ${tokens.map((t) => `{${t}}`).join(", ")}.`);
  if (!used.includes("seq")) problems.push("The pattern must contain {seq}, which keeps names unique.");
  return problems;
}

export async function getNaming(db: Database, customerId: string): Promise<NamingView> {
  const [row] = await db
    .select({ adSet: adsAccounts.adSetNamePattern, ad: adsAccounts.adNamePattern })
    .from(adsAccounts)
    .where(eq(adsAccounts.customerId, customerId));
  return {
    adset_pattern: row?.adSet ?? DEFAULT_AD_SET_NAME_PATTERN,
    ad_pattern: row?.ad ?? DEFAULT_AD_NAME_PATTERN,
    adset_pattern_is_default: !row?.adSet,
    ad_pattern_is_default: !row?.ad,
  };
}

/** `null` restores the default pattern. */
export async function setNaming(
  db: Database,
  customerId: string,
  input: { adset_pattern?: string | null; ad_pattern?: string | null },
  now: Date,
): Promise<NamingView> {
  const values = {
    ...(input.adset_pattern !== undefined && { adSetNamePattern: input.adset_pattern }),
    ...(input.ad_pattern !== undefined && { adNamePattern: input.ad_pattern }),
    updatedAt: now,
  };
  await db
    .insert(adsAccounts)
    .values({ customerId, ...values })
    .onConflictDoUpdate({ target: adsAccounts.customerId, set: values });
  return getNaming(db, customerId);
}

function utcDay(now: Date): string {
  return now.toISOString().slice(0, 10).replace(/-/g, "");
}

/**
 * The next name for `pattern`. The counter row is incremented with one upsert, so concurrent requests
 * never get the same number.
 */
export async function nextName(tx: Tx | Database, customerId: string, pattern: string, values: { target: string; adset?: string; now: Date }): Promise<string> {
  const filled: Record<string, string> = { target: values.target, date: utcDay(values.now), adset: values.adset ?? "" };
  const withoutSeq = pattern.replace(/\{(target|date|adset)\}/g, (_match, token: string) => filled[token] ?? "");
  const [row] = await tx
    .insert(adsNameSequences)
    .values({ customerId, scope: withoutSeq, value: 1 })
    .onConflictDoUpdate({ target: [adsNameSequences.customerId, adsNameSequences.scope], set: { value: sql`${adsNameSequences.value} + 1` } })
    .returning({ value: adsNameSequences.value });
  if (!row) throw new Error("name sequence upsert returned nothing");
  return withoutSeq.replace(/\{seq\}/g, String(row.value).padStart(3, "0"));
}
