import { and, eq, lte, sql } from "drizzle-orm";
import type { Database, Tx } from "../db/client";
import { adsPublishReservations } from "../db/schema";
import type { CoreDeps } from "../core/context";
import { QuotaExceededError } from "../core/errors";
import { adsPublishedThisMonth } from "./plan/published";
import { planState } from "./plan/service";

/**
 * How long a slot stays held for an ad being published. Longer than the slowest publish can take (three
 * Graph calls of at most three 30 s attempts each, plus backoff), so it only ever expires for a process
 * that died mid-publish.
 */
export const PUBLISH_RESERVATION_TTL_MS = 15 * 60_000;

/**
 * Takes one of the month's included ads, or answers 402 `quota_exceeded`. Count and reservation happen in
 * one transaction under a per-customer advisory lock, so concurrent requests for the last slot queue up
 * and only the first finds it free. The lock is held for milliseconds: the platform calls run after it.
 */
async function reserve(db: Database, customerId: string, now: Date): Promise<string | null> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`ads-quota:${customerId}`}, 0))`);
    // The running cycle's stage: the selection (an upgrade counts at once) or what the spend reached.
    const plan = await planState(tx, customerId, now);
    const included = plan.includedAds;
    if (included === null) return null;
    await tx.delete(adsPublishReservations).where(and(eq(adsPublishReservations.customerId, customerId), lte(adsPublishReservations.expiresAt, now)));
    const published = await adsPublishedThisMonth(tx, customerId, now);
    if (published >= included) {
      throw new QuotaExceededError(
        `The ${plan.stage} stage includes ${included} ads per month and ${published} were published this month; upgrade with POST /v1/plan/upgrade to publish more.`,
        { stage: plan.stage, included_ads: included, published_this_month: published, month: now.toISOString().slice(0, 7) },
      );
    }
    const [row] = await tx
      .insert(adsPublishReservations)
      .values({ customerId, createdAt: now, expiresAt: new Date(now.getTime() + PUBLISH_RESERVATION_TTL_MS) })
      .returning({ id: adsPublishReservations.id });
    if (!row) throw new Error("reservation insert returned nothing");
    return row.id;
  });
}

async function release(db: Database | Tx, customerId: string, reservationId: string): Promise<void> {
  await db.delete(adsPublishReservations).where(and(eq(adsPublishReservations.customerId, customerId), eq(adsPublishReservations.id, reservationId)));
}

/**
 * Publishes one ad within the included ads of the running calendar month (UTC). Every ad created through
 * the API counts, archived ones included: publishing is what the plan limits.
 *
 * `publish` makes the platform calls and then records the ad; it must call `settle(tx)` inside the
 * transaction that inserts the ad row, which turns the held slot into that row atomically. If `publish`
 * fails at any point the slot is released, so a failed or refused platform call never leaves a counted
 * phantom; a crash mid-publish leaves one that expires after `PUBLISH_RESERVATION_TTL_MS`.
 */
export async function publishWithinQuota<T>(
  deps: Pick<CoreDeps, "db" | "logger">,
  customerId: string,
  now: Date,
  publish: (settle: (tx: Tx) => Promise<void>) => Promise<T>,
): Promise<T> {
  const reservationId = await reserve(deps.db, customerId, now);
  const settle = async (tx: Tx) => {
    if (reservationId !== null) await release(tx, customerId, reservationId);
  };
  try {
    return await publish(settle);
  } catch (error) {
    if (reservationId !== null) {
      // The original error is what the caller needs; a failed release only costs the slot until it expires.
      await release(deps.db, customerId, reservationId).catch((releaseError: unknown) =>
        deps.logger.warn("could not release an ad publish reservation; it expires on its own", {
          customer_id: customerId,
          reservation_id: reservationId,
          error: releaseError instanceof Error ? releaseError.message : String(releaseError),
        }),
      );
    }
    throw error;
  }
}
