import { and, desc, eq, isNull } from "drizzle-orm";
import type { Database } from "../../db/client";
import { adsAds, adsCreatives } from "../../db/schema";
import { NotFoundError, ValidationError } from "../../core/errors";
import { archivedConflict } from "../conflicts";
import { findAdSet } from "../adsets/service";
import { assertVideoUsable, findCreative, type CreativeRow } from "../creatives/service";
import type { AdsDeps } from "../deps";
import { getNaming, nextName } from "../naming";
import { connectAccount, connectCredentials, type ConnectedAccount } from "../onboarding/service";
import { buildPlacementCreative, type AdReviewFeedback, type AdStatusView, type PlacementMedia } from "../platform";
import { publishWithinQuota } from "../quota";
import { renderNotReady } from "../templates/video-render";
import { assertTargetActive, type TargetRow } from "../targets/service";
import { closeCompensations, compensateOnFailure, openCompensation, type PendingCompensation } from "../compensations";
import { upstream, type UpstreamReference } from "../upstream";
import { issuesReason, recordAdStatus, type ObservedAdStatus, type StatusSource } from "../webhooks/status-changes";
import type { z } from "zod";
import type { Ad, AdLiveStatus, CreateAd } from "./schema";

type Row = typeof adsAds.$inferSelect;
export type AdStatus = Row["status"];

/**
 * Appended to the destination when the final creative is built: `utm_source=meta`,
 * `utm_medium=paid_social`, `utm_campaign=<target key>`, `utm_content=<creative id>`. The caller sends a
 * clean link; a link that already carries one of these is refused rather than silently overwritten.
 */
const TRACKING_PARAMETERS = ["utm_source", "utm_medium", "utm_campaign", "utm_content"] as const;

/** The API's `Ad` schema (one schema per resource). */
export type AdView = z.infer<typeof Ad>;

/** The API's `AdLiveStatus` schema. */
type AdStatusReport = z.infer<typeof AdLiveStatus>;

/** The API's `CreateAd` request. */
type CreateAdInput = z.infer<typeof CreateAd>;

export function toAdView(row: Row, platformCreativeId: string | null): AdView {
  return {
    id: row.id,
    ad_set_id: row.adSetId,
    creative_id: row.creativeId,
    name: row.name,
    status: row.status,
    effective_status: row.effectiveStatus,
    disapproval_reason: row.disapprovalReason,
    platform_ad_id: row.platformAdId,
    platform_creative_id: platformCreativeId,
    status_checked_at: row.statusCheckedAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

function trackedLink(link: string, values: { targetKey: string; creativeId: string }): string {
  const url = new URL(link);
  url.searchParams.set("utm_source", "meta");
  url.searchParams.set("utm_medium", "paid_social");
  url.searchParams.set("utm_campaign", values.targetKey);
  url.searchParams.set("utm_content", values.creativeId);
  return url.toString();
}

/** Review feedback as one readable string: `POLICY_CODE: explanation`, several joined with `; `. */
function disapprovalReason(status: string, feedback: AdReviewFeedback | undefined): string | null {
  if (!feedback) return null;
  const entries = [...Object.entries(feedback.global ?? {}), ...Object.values(feedback.placement_specific ?? {}).flatMap((byCode) => Object.entries(byCode))];
  if (entries.length === 0) return status === "DISAPPROVED" ? "Disapproved by the platform's review (no reason given)." : null;
  return [...new Map(entries).entries()].map(([code, text]) => `${code}: ${text}`).join("; ");
}

function invalid(path: string, message: string): ValidationError {
  return new ValidationError("The ad has invalid fields; see details.", [{ path, message }]);
}

function linkRequired(): ValidationError {
  return invalid("link", "Required while the creative is a draft: the final creative is built with it.");
}

function placementMedia(creative: CreativeRow): PlacementMedia {
  if (creative.type === "IMAGE" && creative.imageHashes) return { kind: "image", imageHashes: creative.imageHashes };
  if (creative.type === "VIDEO" && creative.videoIds) {
    return { kind: "video", videoIds: creative.videoIds, ...(creative.thumbnailHashes && { thumbnailHashes: creative.thumbnailHashes }) };
  }
  throw new Error(`creative ${creative.id} has no media`);
}

/**
 * Builds the final creative from a draft: one platform creative with the three placement ratios (1:1
 * default, 4:5 feed, 9:16 stories and reels), the ad's copy, link and call to action.
 */
async function buildFinalCreative(deps: AdsDeps, account: ConnectedAccount, creative: CreativeRow, target: TargetRow, input: CreateAdInput): Promise<string> {
  if (!input.link) throw linkRequired();
  if (creative.type === "VIDEO" && creative.videoIds) {
    // At the latest now the video must be READY, thumbnail or not.
    await assertVideoUsable(deps, account.customerId, creative.videoIds["1:1"], true, account.session);
  }
  const params = buildPlacementCreative({
    name: creative.name,
    pageId: account.pageId,
    instagramUserId: account.instagramAccountId,
    media: placementMedia(creative),
    link: trackedLink(input.link, { targetKey: target.key, creativeId: creative.id }),
    ...(input.display_link !== undefined && { displayLink: input.display_link }),
    ...(input.message !== undefined && { message: input.message }),
    ...(input.headline !== undefined && { headline: input.headline }),
    ...(input.description !== undefined && { description: input.description }),
    callToAction: input.call_to_action ?? "LEARN_MORE",
  });
  const created = await upstream({ logger: deps.logger, customerId: account.customerId, action: "create ad creative" }, () =>
    account.session.createAdCreative(account.adAccountId, params),
  );
  return created.id;
}

function checkLink(link: string | undefined): void {
  if (link === undefined) return;
  const url = new URL(link);
  const present = TRACKING_PARAMETERS.filter((name) => url.searchParams.has(name));
  if (present.length > 0) throw invalid("link", `Tracking parameters are appended automatically; remove ${present.join(", ")}.`);
}

/**
 * Publishes an ad: checks onboarding, ad set, target and creative, then holds one of the month's included
 * ads (402 when none is left) while it builds the final creative from a draft (copy fields are ignored once
 * a creative is final) and creates the ad upstream, PAUSED unless `status: ACTIVE`. The platform reviews
 * every new ad, so its cached effective status starts as PENDING_REVIEW.
 */
export async function createAd(deps: AdsDeps, customerId: string, input: CreateAdInput): Promise<AdView> {
  checkLink(input.link);
  const now = deps.clock.now();
  const account = await connectAccount(deps, customerId);
  const found = await findAdSet(deps.db, customerId, input.ad_set_id);
  if (!found) throw invalid("ad_set_id", "No ad set with this id.");
  const { adSet, target } = found;
  if (adSet.status === "ARCHIVED") throw archivedConflict("ad set");
  assertTargetActive(target);
  const creative = await findCreative(deps.db, customerId, input.creative_id);
  if (!creative) throw invalid("creative_id", "No creative with this id.");
  if (creative.status === "ARCHIVED") throw archivedConflict("creative");
  // A video template's render holds no videos until its job is READY.
  if (creative.type === "VIDEO" && !creative.videoIds) throw await renderNotReady(deps, customerId, creative.id);
  if (creative.platformCreativeId === null && !input.link) throw linkRequired();

  return publishWithinQuota(deps, customerId, now, async (settle) => {
    // A final creative built for this ad and the ad itself are compensated (deleted upstream) if anything after them fails.
    const pending: PendingCompensation[] = [];
    let platformCreativeId = creative.platformCreativeId;
    if (platformCreativeId === null) {
      platformCreativeId = await buildFinalCreative(deps, account, creative, target, input);
      pending.push(await openCompensation(deps, account.session, { customerId, kind: "creative", platformId: platformCreativeId }));
    }
    const finalCreativeId = platformCreativeId;
    return compensateOnFailure(deps, account.session, pending, async () => {
      const naming = await getNaming(deps.db, customerId);
      const name = input.name ?? (await nextName(deps.db, customerId, naming.ad_pattern, { target: target.key, adset: adSet.name, now }));
      const status = input.status ?? "PAUSED";
      const references: UpstreamReference[] = [{ object: "ad set", id: adSet.id, platformId: adSet.platformAdSetId, graphField: "adset_id" }];
      if (creative.platformCreativeId !== null)
        references.push({ object: "creative", id: creative.id, platformId: creative.platformCreativeId, graphField: "creative" });
      const created = await upstream({ logger: deps.logger, customerId, action: "create ad", references }, () =>
        account.session.createAd(account.adAccountId, { name, adset_id: adSet.platformAdSetId, creative: { creative_id: finalCreativeId }, status }),
      );
      pending.push(await openCompensation(deps, account.session, { customerId, kind: "ad", platformId: created.id }));

      const row = await deps.db.transaction(async (tx) => {
        const [inserted] = await tx
          .insert(adsAds)
          .values({
            customerId,
            adSetId: adSet.id,
            creativeId: creative.id,
            name,
            status,
            effectiveStatus: "PENDING_REVIEW",
            platformAdId: created.id,
            createdAt: now,
            updatedAt: now,
          })
          .returning();
        await settle(tx);
        if (creative.platformCreativeId === null) {
          // Conditional: if another ad finalised the same draft meanwhile, its creative stays the recorded one.
          await tx
            .update(adsCreatives)
            .set({ platformCreativeId: finalCreativeId, status: "ACTIVE", updatedAt: now })
            .where(and(eq(adsCreatives.customerId, customerId), eq(adsCreatives.id, creative.id), isNull(adsCreatives.platformCreativeId)));
        }
        await closeCompensations(tx, pending);
        return inserted;
      });
      if (!row) throw new Error("ad insert returned nothing");
      return toAdView(row, finalCreativeId);
    });
  });
}

async function findAd(db: Database, customerId: string, id: string): Promise<{ ad: Row; platformCreativeId: string | null } | undefined> {
  const [found] = await db
    .select({ ad: adsAds, platformCreativeId: adsCreatives.platformCreativeId })
    .from(adsAds)
    .innerJoin(adsCreatives, eq(adsCreatives.id, adsAds.creativeId))
    .where(and(eq(adsAds.customerId, customerId), eq(adsAds.id, id)));
  return found;
}

export async function listAds(
  db: Database,
  customerId: string,
  query: { adset_id?: string; status?: AdStatus; limit: number; offset: number },
): Promise<AdView[]> {
  const rows = await db
    .select({ ad: adsAds, platformCreativeId: adsCreatives.platformCreativeId })
    .from(adsAds)
    .innerJoin(adsCreatives, eq(adsCreatives.id, adsAds.creativeId))
    .where(
      and(
        eq(adsAds.customerId, customerId),
        query.adset_id !== undefined ? eq(adsAds.adSetId, query.adset_id) : undefined,
        query.status !== undefined ? eq(adsAds.status, query.status) : undefined,
      ),
    )
    .orderBy(desc(adsAds.createdAt), desc(adsAds.id))
    .limit(query.limit)
    .offset(query.offset);
  return rows.map((row) => toAdView(row.ad, row.platformCreativeId));
}

/** Graph's configured status, in the ad's vocabulary (a deleted ad reads as archived); null when Graph left it out. */
function configuredStatus(view: AdStatusView): AdStatus | null {
  if (view.configured_status === undefined) return null;
  return view.configured_status === "DELETED" ? "ARCHIVED" : view.configured_status;
}

/** What a platform read says, in the shape the status recorder stores. */
export function observedStatus(view: AdStatusView): ObservedAdStatus {
  const reviewReason = disapprovalReason(view.effective_status, view.ad_review_feedback);
  return {
    configuredStatus: configuredStatus(view),
    effectiveStatus: view.effective_status,
    disapprovalReason: reviewReason,
    reason: reviewReason ?? (view.effective_status === "WITH_ISSUES" ? issuesReason(view.issues_info) : null),
  };
}

/**
 * Stores a platform read through the one status recorder (which emits `ad.status_changed` when the
 * effective status changed) and answers the row as it is now. `readAt` is when the read started.
 */
async function saveStatus(deps: AdsDeps, customerId: string, ad: Row, view: AdStatusView, readAt: Date, source: StatusSource): Promise<Row> {
  await recordAdStatus(deps, { customerId, adId: ad.id, observed: observedStatus(view), observedAt: readAt, source });
  const [row] = await deps.db
    .select()
    .from(adsAds)
    .where(and(eq(adsAds.customerId, customerId), eq(adsAds.id, ad.id)));
  return row ?? ad;
}

/** Activates or pauses an ad; needs an active target (409). The answer carries the live effective status. */
export async function setAdStatus(deps: AdsDeps, customerId: string, id: string, status: "ACTIVE" | "PAUSED"): Promise<AdView> {
  const found = await findAd(deps.db, customerId, id);
  if (!found) throw new NotFoundError("Ad");
  const { ad } = found;
  if (ad.status === "ARCHIVED") throw archivedConflict("ad");
  const parent = await findAdSet(deps.db, customerId, ad.adSetId);
  if (!parent) throw new NotFoundError("Ad");
  if (parent.adSet.status === "ARCHIVED") throw archivedConflict("ad set");
  assertTargetActive(parent.target);
  const session = await connectCredentials(deps, customerId);
  const context = { logger: deps.logger, customerId, action: "update ad", references: [{ object: "ad" as const, id: ad.id, platformId: ad.platformAdId }] };
  await upstream(context, () => session.updateAd(ad.platformAdId, { status }));
  const readAt = deps.clock.now();
  const view = await upstream(context, () => session.getAd(ad.platformAdId));
  return toAdView(await saveStatus(deps, customerId, ad, view, readAt, "update"), found.platformCreativeId);
}

/** Archived upstream, then here; archiving again answers the same record without a platform call. */
export async function archiveAd(deps: AdsDeps, customerId: string, id: string): Promise<AdView> {
  const found = await findAd(deps.db, customerId, id);
  if (!found) throw new NotFoundError("Ad");
  if (found.ad.status === "ARCHIVED") return toAdView(found.ad, found.platformCreativeId);
  const session = await connectCredentials(deps, customerId);
  await upstream(
    { logger: deps.logger, customerId, action: "archive ad", references: [{ object: "ad", id: found.ad.id, platformId: found.ad.platformAdId }] },
    () => session.archive(found.ad.platformAdId),
  );
  const observed = { configuredStatus: "ARCHIVED", effectiveStatus: "ARCHIVED", disapprovalReason: found.ad.disapprovalReason, reason: null } as const;
  // Our own archive is definitive: never older than what is stored, so the recorder always applies it.
  const observedAt = new Date(Math.max(deps.clock.now().getTime(), found.ad.statusCheckedAt?.getTime() ?? 0));
  await recordAdStatus(deps, { customerId, adId: id, observed, observedAt, source: "update" });
  const [row] = await deps.db
    .select()
    .from(adsAds)
    .where(and(eq(adsAds.customerId, customerId), eq(adsAds.id, id)));
  if (!row) throw new NotFoundError("Ad");
  return toAdView(row, found.platformCreativeId);
}

/** Live status from the platform; the answer also refreshes the cached value `GET /v1/ads` shows. */
export async function checkAdStatus(deps: AdsDeps, customerId: string, id: string): Promise<AdStatusReport> {
  const found = await findAd(deps.db, customerId, id);
  if (!found) throw new NotFoundError("Ad");
  const session = await connectCredentials(deps, customerId);
  const readAt = deps.clock.now();
  const view = await upstream(
    { logger: deps.logger, customerId, action: "read ad status", references: [{ object: "ad", id: found.ad.id, platformId: found.ad.platformAdId }] },
    () => session.getAd(found.ad.platformAdId),
  );
  const row = await saveStatus(deps, customerId, found.ad, view, readAt, "status_read");
  return {
    id: row.id,
    platform_ad_id: row.platformAdId,
    status: row.status,
    effective_status: row.effectiveStatus,
    disapproval_reason: row.disapprovalReason,
    checked_at: (row.statusCheckedAt ?? deps.clock.now()).toISOString(),
  };
}
