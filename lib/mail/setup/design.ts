import { eq, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { mailDesignRules } from "../../db/schema";
import { resolveDesignTokens, type DesignTokens } from "../render/tokens";

export type DesignRules = { tokens: DesignTokens; overrides: Record<string, string>; version: number };

/** Complete tokens: the customer's partial overrides over the defaults (defaults alone when none). */
export async function getDesignRules(db: Database, customerId: string): Promise<DesignRules> {
  const [row] = await db.select().from(mailDesignRules).where(eq(mailDesignRules.customerId, customerId));
  const overrides = row?.overrides ?? {};
  return { tokens: resolveDesignTokens(overrides), overrides, version: row?.version ?? 0 };
}

/** Replaces the overrides (validated: every bad value is reported at once). */
export async function setDesignRules(db: Database, customerId: string, overrides: Record<string, string>, now: Date): Promise<DesignRules> {
  resolveDesignTokens(overrides, "overrides");
  await db
    .insert(mailDesignRules)
    .values({ customerId, overrides, updatedAt: now })
    .onConflictDoUpdate({ target: mailDesignRules.customerId, set: { overrides, updatedAt: now, version: sql`${mailDesignRules.version} + 1` } });
  return getDesignRules(db, customerId);
}
