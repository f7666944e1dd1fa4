import { and, asc, eq, gte, inArray, isNull, lt, lte, ne, or, sql } from "drizzle-orm";
import { ApiError } from "../../core/errors";
import { adsAds, adsStatusChanges } from "../../db/schema";
import { observedStatus } from "../ad/service";
import type { AdsDeps } from "../deps";
import { connectCredentials } from "../onboarding/service";
import { MAX_IDS_PER_READ, PlatformError, type AdStatusView, type GraphSession } from "../platform";
import { recordAdStatus } from "./status-changes";

/**
 * States an ad leaves without anyone acting on it: review, post-processing, issues. The platform sends
 * no webhook for review outcomes (DESIGN §5), so these are polled.
 */
const POLLED_STATUSES = ["PENDING_REVIEW", "IN_PROCESS", "WITH_ISSUES", "PREAPPROVED", "PENDING_BILLING_INFO"] as const;
/** Ads whose status changed this recently are polled too: an approval can be followed by issues or a re-review. */
const RECENT_CHANGE_MS = 24 * 3600_000;
/** An ad read this recently (by any path) is not read again by the poll. */
const POLL_FRESHNESS_MS = 50_000;
/** Per ad account and run: 4 reads of 50 ads. What is left waits for the next run, first in line. */
const MAX_READS_PER_ACCOUNT = 4;
const MAX_ADS_PER_RUN = 2000;

export type PollResult = { accounts: number; ads: number; reads: number; changed: number; failed: number; deferred: number };

type Due = { id: string; customerId: string; platformAdId: string };

/** Ads due for a poll, least recently checked first (never checked before all others). */
async function dueAds(deps: AdsDeps, now: Date): Promise<Due[]> {
  const recentlyChanged = deps.db
    .select({ adId: adsStatusChanges.adId })
    .from(adsStatusChanges)
    .where(gte(adsStatusChanges.createdAt, new Date(now.getTime() - RECENT_CHANGE_MS)));
  return deps.db
    .select({ id: adsAds.id, customerId: adsAds.customerId, platformAdId: adsAds.platformAdId })
    .from(adsAds)
    .where(
      and(
        ne(adsAds.status, "ARCHIVED"),
        // An ad recorded after "now" (another clock's) is not this run's business.
        lte(adsAds.createdAt, now),
        or(isNull(adsAds.statusCheckedAt), lt(adsAds.statusCheckedAt, new Date(now.getTime() - POLL_FRESHNESS_MS))),
        or(inArray(adsAds.effectiveStatus, [...POLLED_STATUSES]), inArray(adsAds.id, recentlyChanged)),
      ),
    )
    .orderBy(sql`${adsAds.statusCheckedAt} asc nulls first`, asc(adsAds.id))
    .limit(MAX_ADS_PER_RUN);
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** A read the platform refused for this customer as a whole: stop polling the account for this run. */
function stopsAccount(error: unknown): boolean {
  return error instanceof PlatformError && (error.kind === "rate_limited" || error.kind === "auth" || error.kind === "transient");
}

type Account = { customerId: string; session: GraphSession; batches: Due[][] };

/**
 * Reads one batch. Graph refuses a whole `?ids=` read when one id is unknown (an ad deleted upstream, a
 * simulator restarted): then the batch's ads are read one by one, and an ad that cannot be read is marked
 * checked so it moves to the back of the line instead of blocking the others. An item of the batched
 * answer the client could not use (it logs and leaves it out) is marked checked the same way.
 */
async function readBatch(deps: AdsDeps, account: Account, batch: Due[], result: PollResult): Promise<void> {
  const readAt = deps.clock.now();
  let views: Map<string, AdStatusView>;
  const unreadable = new Set<string>();
  try {
    result.reads += 1;
    views = await account.session.getAds(batch.map((ad) => ad.platformAdId));
  } catch (error) {
    if (stopsAccount(error) || !(error instanceof PlatformError)) throw error;
    views = new Map();
    for (const ad of batch) {
      try {
        result.reads += 1;
        views.set(ad.platformAdId, await account.session.getAd(ad.platformAdId));
      } catch (single) {
        if (stopsAccount(single) || !(single instanceof PlatformError)) throw single;
        result.failed += 1;
        unreadable.add(ad.id);
        deps.logger.warn("ad status could not be read from the platform", {
          customer_id: account.customerId,
          ad_id: ad.id,
          code: single.code,
          kind: single.kind,
        });
        await deps.db
          .update(adsAds)
          .set({ statusCheckedAt: readAt })
          .where(and(eq(adsAds.id, ad.id), or(isNull(adsAds.statusCheckedAt), lt(adsAds.statusCheckedAt, readAt))));
      }
    }
  }
  for (const ad of batch) {
    const view = views.get(ad.platformAdId);
    if (!view) {
      if (unreadable.has(ad.id)) continue;
      // Left out of the batched answer as unusable (the client logged it with its id): marked checked so
      // it moves to the back of the line; the next run reads it again.
      result.failed += 1;
      await deps.db
        .update(adsAds)
        .set({ statusCheckedAt: readAt })
        .where(and(eq(adsAds.id, ad.id), or(isNull(adsAds.statusCheckedAt), lt(adsAds.statusCheckedAt, readAt))));
      continue;
    }
    result.ads += 1;
    if (await recordAdStatus(deps, { customerId: account.customerId, adId: ad.id, observed: observedStatus(view), observedAt: readAt, source: "poll" }))
      result.changed += 1;
  }
}

/**
 * The `ads-status-poll` cron: reads ads under review, in post-processing or with issues, and ads that
 * changed in the last 24 hours, in batched reads of at most 50 ids per call, at most
 * `MAX_READS_PER_ACCOUNT` batches per ad account and run, taking the accounts in turns (one batch of
 * each, then the next) so no account's limit is spent on another's backlog. A rate limit, a refused token
 * or an outage stops that account until the next run; the others go on. Changes go through the one status
 * recorder, so a change the platform webhook or a status read saw first is not reported again.
 */
export async function pollAdStatuses(deps: AdsDeps): Promise<PollResult> {
  const result: PollResult = { accounts: 0, ads: 0, reads: 0, changed: 0, failed: 0, deferred: 0 };
  const due = await dueAds(deps, deps.clock.now());
  const byCustomer = new Map<string, Due[]>();
  for (const ad of due) byCustomer.set(ad.customerId, [...(byCustomer.get(ad.customerId) ?? []), ad]);

  const accounts: Account[] = [];
  for (const [customerId, ads] of byCustomer) {
    try {
      const session = await connectCredentials(deps, customerId);
      const batches = chunks(ads, MAX_IDS_PER_READ);
      result.deferred += batches.slice(MAX_READS_PER_ACCOUNT).reduce((n, batch) => n + batch.length, 0);
      accounts.push({ customerId, session, batches: batches.slice(0, MAX_READS_PER_ACCOUNT) });
    } catch (error) {
      // Onboarding incomplete or the token recorded as refused: nothing can be read for this customer. Any other
      // failure (credentials that no longer open, say) is this customer's alone: logged, and the others go on.
      if (!(error instanceof ApiError))
        deps.logger.error("status poll: the customer's credentials could not be used", { customer_id: customerId, error: String(error) });
      result.deferred += ads.length;
    }
  }
  result.accounts = accounts.length;

  for (let round = 0; round < MAX_READS_PER_ACCOUNT; round++) {
    for (const account of accounts) {
      const batch = account.batches[round];
      if (!batch) continue;
      try {
        await readBatch(deps, account, batch, result);
      } catch (error) {
        if (!(error instanceof PlatformError)) throw error;
        deps.logger.warn("ad status poll stopped for this account until the next run", { customer_id: account.customerId, kind: error.kind, code: error.code });
        result.deferred += account.batches.slice(round).reduce((n, rest) => n + rest.length, 0);
        account.batches = [];
      }
    }
  }
  return result;
}
