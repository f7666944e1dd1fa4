import { and, count, eq, gte } from "drizzle-orm";
import type { Database, Tx } from "../../db/client";
import { adsAds, adsPublishReservations } from "../../db/schema";

function monthStartUtc(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

/**
 * Ads recorded this month plus those being published right now: what the next publish is counted against.
 * One statement, so one snapshot: an ad row and the slot it settles swap in a single commit, and the count
 * sees exactly one of the two even while that commit lands (two separate counts could see neither).
 */
export async function adsPublishedThisMonth(db: Database | Tx, customerId: string, now: Date): Promise<number> {
  const since = monthStartUtc(now);
  const parts = await db
    .select({ value: count() })
    .from(adsAds)
    .where(and(eq(adsAds.customerId, customerId), gte(adsAds.createdAt, since)))
    .unionAll(
      db
        .select({ value: count() })
        .from(adsPublishReservations)
        .where(and(eq(adsPublishReservations.customerId, customerId), gte(adsPublishReservations.createdAt, since))),
    );
  return parts.reduce((sum, part) => sum + part.value, 0);
}
