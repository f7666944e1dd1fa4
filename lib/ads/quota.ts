import { and, count, eq, gte } from "drizzle-orm";
import type { Database } from "../db/client";
import { adsAds } from "../db/schema";
import type { AdsAccess } from "../core/context";
import { QuotaExceededError } from "../core/errors";

/** Included ads per calendar month by stage (plan table); enterprise is set per customer. */
export const INCLUDED_ADS: Record<Exclude<AdsAccess["stage"], "enterprise">, number> = { starter: 5, growth: 25, scale: 100 };

/** `null` means no cap: an enterprise customer whose operator has not set `enterprise_included_ads`. */
export function includedAds(access: Pick<AdsAccess, "stage" | "enterpriseIncludedAds">): number | null {
  return access.stage === "enterprise" ? access.enterpriseIncludedAds : INCLUDED_ADS[access.stage];
}

export function monthStartUtc(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

export async function adsPublishedThisMonth(db: Database, customerId: string, now: Date): Promise<number> {
  const [row] = await db
    .select({ value: count() })
    .from(adsAds)
    .where(and(eq(adsAds.customerId, customerId), gte(adsAds.createdAt, monthStartUtc(now))));
  return row?.value ?? 0;
}

/**
 * Every ad created through the API in the running calendar month (UTC) counts, archived ones included:
 * publishing is what the plan limits. The count is read before the platform call, so two requests racing
 * for the last included ad can both pass; holding a lock across a platform call would cost more.
 */
export async function assertAdQuota(db: Database, customerId: string, access: AdsAccess, now: Date): Promise<void> {
  const included = includedAds(access);
  if (included === null) return;
  const published = await adsPublishedThisMonth(db, customerId, now);
  if (published < included) return;
  throw new QuotaExceededError(
    `The ${access.stage} stage includes ${included} ads per month and ${published} were published this month; upgrade with POST /v1/plan/upgrade to publish more.`,
    { stage: access.stage, included_ads: included, published_this_month: published, month: now.toISOString().slice(0, 7) },
  );
}
