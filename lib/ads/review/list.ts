import { and, count, desc, eq, inArray } from "drizzle-orm";
import type { Database } from "../../db/client";
import { adsAdSets, adsAds, adsCreatives, adsStatusChanges, adsTargets, type adSetStatuses, type adStatuses } from "../../db/schema";
import { beforeCursor, toPage, type Cursor } from "../../core/pagination";
import { toAdView } from "../ad/service";
import { toAdSetView } from "../adsets/service";
import type { AdminAd, AdminAdSet } from "./schema";
import type { z } from "zod";

/**
 * A customer's ad sets and ads with their review state, as the operator reads them ("why is this ad not
 * running?").
 *
 * Invariants:
 * - Every query filters by customer first; another customer's ad set or ad is never found.
 * - Only our records are read (the cached `effective_status` and review feedback the status recorder
 *   stored); the platform is not called, so support can page through any number of ads cheaply.
 * - Newest first by (created_at, id), keyset-paged: the cursor is opaque and new ads never shift a page.
 * - An ad carries its ad set's name, so nothing has to be labelled by a platform id.
 */

type AdSetReviewFilter = {
  status?: (typeof adSetStatuses)[number];
  target?: string;
  limit: number;
  after: Cursor | null;
};

type AdReviewFilter = {
  status?: (typeof adStatuses)[number];
  effectiveStatus?: string;
  adSetId?: string;
  limit: number;
  after: Cursor | null;
};

type AdSetReview = z.infer<typeof AdminAdSet>;
type AdReview = z.infer<typeof AdminAd>;
type StatusChange = NonNullable<AdReview["last_status_change"]>;

const cursorOf = (row: { createdAt: Date; id: string }): Cursor => ({ at: row.createdAt.toISOString(), id: row.id });

export async function listAdSetsForReview(db: Database, customerId: string, query: AdSetReviewFilter) {
  const rows = await db
    .select({ adSet: adsAdSets, target: adsTargets })
    .from(adsAdSets)
    .innerJoin(adsTargets, eq(adsTargets.id, adsAdSets.targetId))
    .where(
      and(
        eq(adsAdSets.customerId, customerId),
        query.status !== undefined ? eq(adsAdSets.status, query.status) : undefined,
        query.target !== undefined ? eq(adsTargets.key, query.target) : undefined,
        beforeCursor(adsAdSets.createdAt, adsAdSets.id, query.after),
      ),
    )
    .orderBy(desc(adsAdSets.createdAt), desc(adsAdSets.id))
    .limit(query.limit + 1);
  const page = toPage(rows, query.limit, (row) => cursorOf(row.adSet));
  const ids = page.items.map((row) => row.adSet.id);
  const counts =
    ids.length === 0
      ? []
      : await db
          .select({ adSetId: adsAds.adSetId, effectiveStatus: adsAds.effectiveStatus, ads: count() })
          .from(adsAds)
          .where(and(eq(adsAds.customerId, customerId), inArray(adsAds.adSetId, ids)))
          .groupBy(adsAds.adSetId, adsAds.effectiveStatus);
  const items: AdSetReview[] = page.items.map((row) => {
    const mine = counts.filter((c) => c.adSetId === row.adSet.id).sort((a, b) => a.effectiveStatus.localeCompare(b.effectiveStatus));
    return {
      ...toAdSetView(row.adSet, row.target),
      ads: {
        total: mine.reduce((sum, c) => sum + c.ads, 0),
        by_effective_status: Object.fromEntries(mine.map((c) => [c.effectiveStatus, c.ads])),
      },
    };
  });
  return { items, paging: page.paging };
}

export async function listAdsForReview(db: Database, customerId: string, query: AdReviewFilter) {
  const rows = await db
    .select({ ad: adsAds, platformCreativeId: adsCreatives.platformCreativeId, adSet: adsAdSets, target: adsTargets })
    .from(adsAds)
    .innerJoin(adsCreatives, eq(adsCreatives.id, adsAds.creativeId))
    .innerJoin(adsAdSets, eq(adsAdSets.id, adsAds.adSetId))
    .innerJoin(adsTargets, eq(adsTargets.id, adsAdSets.targetId))
    .where(
      and(
        eq(adsAds.customerId, customerId),
        query.status !== undefined ? eq(adsAds.status, query.status) : undefined,
        query.effectiveStatus !== undefined ? eq(adsAds.effectiveStatus, query.effectiveStatus) : undefined,
        query.adSetId !== undefined ? eq(adsAds.adSetId, query.adSetId) : undefined,
        beforeCursor(adsAds.createdAt, adsAds.id, query.after),
      ),
    )
    .orderBy(desc(adsAds.createdAt), desc(adsAds.id))
    .limit(query.limit + 1);
  const page = toPage(rows, query.limit, (row) => cursorOf(row.ad));
  const latest = await latestStatusChanges(
    db,
    customerId,
    page.items.map((row) => row.ad.id),
  );
  const items: AdReview[] = page.items.map((row) => {
    const adSet = toAdSetView(row.adSet, row.target);
    const change = latest.get(row.ad.id) ?? null;
    return {
      ...toAdView(row.ad, row.platformCreativeId),
      ad_set: { id: adSet.id, name: adSet.name, status: adSet.status, effective_status: adSet.effective_status },
      // The platform's `issues_info` is kept with the change into WITH_ISSUES (the ad row keeps review feedback only).
      issues: row.ad.effectiveStatus === "WITH_ISSUES" && change?.effective_status === "WITH_ISSUES" ? change.reason : null,
      last_status_change: change,
    };
  });
  return { items, paging: page.paging };
}

/** Per ad its latest recorded change of effective status (one indexed read for the page). */
async function latestStatusChanges(db: Database, customerId: string, adIds: string[]): Promise<Map<string, StatusChange>> {
  if (adIds.length === 0) return new Map();
  const rows = await db
    .selectDistinctOn([adsStatusChanges.adId])
    .from(adsStatusChanges)
    .where(and(eq(adsStatusChanges.customerId, customerId), inArray(adsStatusChanges.adId, adIds)))
    .orderBy(adsStatusChanges.adId, desc(adsStatusChanges.createdAt), desc(adsStatusChanges.id));
  return new Map(
    rows.map((row) => [
      row.adId,
      {
        previous_status: row.previousStatus,
        effective_status: row.effectiveStatus,
        reason: row.reason,
        source: row.source,
        at: row.createdAt.toISOString(),
      },
    ]),
  );
}
