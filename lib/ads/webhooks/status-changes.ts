import { sql } from "drizzle-orm";
import type { CoreDeps } from "../../core/context";
import { adsAds, adsStatusChanges } from "../../db/schema";
import { queryRows } from "../../db/sql";
import type { AdIssue } from "../platform";
import { enqueueAdStatusChanged, publishAdsDeliveries } from "./events";

/** Which path saw a change first (kept with the change, for support). */
export type StatusSource = "poll" | "platform_webhook" | "status_read" | "update";

export type ObservedAdStatus = {
  /** Null when the platform's answer did not say (the stored configured status stays). */
  configuredStatus: "ACTIVE" | "PAUSED" | "ARCHIVED" | null;
  effectiveStatus: string;
  /** Review feedback as text (`CODE: explanation`), or null. */
  disapprovalReason: string | null;
  /** Why the ad is in this state, for the event: review feedback, else the platform's issue text. */
  reason: string | null;
};

/** `issues_info` of a WITH_ISSUES object as one readable string, or null. */
export function issuesReason(issues: readonly AdIssue[] | undefined): string | null {
  const texts = (issues ?? []).map((issue) => {
    const text = issue.error_message ?? issue.error_summary ?? "";
    return issue.error_code ? `${issue.error_code}: ${text}`.trim() : text;
  });
  const joined = texts.filter((text) => text !== "").join("; ");
  return joined === "" ? null : joined;
}

export type RecordDeps = Pick<CoreDeps, "db" | "queue" | "logger">;

/**
 * Stores what the platform said about an ad at `observedAt` and, when the effective status differs from
 * the cached one, records the change and its `ad.status_changed` outbox rows in the same transaction.
 *
 * Exactly one event per change, whichever path (poll, platform webhook, status read, our own update) saw
 * it first: the update locks the ad's row and compares with the value it replaces, so a second path with
 * the same news finds nothing to change. An observation older than the last stored one (a slow read
 * overtaken by a newer one) changes nothing, so a stale answer can never flip the status back and forth.
 * Returns whether a change was recorded.
 */
export async function recordAdStatus(
  deps: RecordDeps,
  input: { customerId: string; adId: string; observed: ObservedAdStatus; observedAt: Date; source: StatusSource },
): Promise<boolean> {
  const { customerId, adId, observed, observedAt, source } = input;
  const at = observedAt.toISOString();
  const outcome = await deps.db.transaction(async (tx) => {
    const [updated] = await queryRows<{ previous_status: string }>(
      tx,
      sql`update ${adsAds} as a
          set status = coalesce(${observed.configuredStatus}, a.status), effective_status = ${observed.effectiveStatus},
              disapproval_reason = ${observed.disapprovalReason}, status_checked_at = ${at}::timestamptz, updated_at = ${at}::timestamptz
          from (select id, effective_status from ${adsAds} where id = ${adId} and customer_id = ${customerId} for update) as previous
          where a.id = previous.id and (a.status_checked_at is null or a.status_checked_at <= ${at}::timestamptz)
          returning previous.effective_status as previous_status`,
    );
    if (!updated || updated.previous_status === observed.effectiveStatus) return { changed: false, deliveryIds: [] };
    const [change] = await tx
      .insert(adsStatusChanges)
      .values({
        customerId,
        adId,
        previousStatus: updated.previous_status,
        effectiveStatus: observed.effectiveStatus,
        reason: observed.reason,
        source,
        createdAt: observedAt,
      })
      .returning();
    if (!change) throw new Error("status change insert returned nothing");
    return { changed: true, deliveryIds: await enqueueAdStatusChanged(tx, customerId, change) };
  });
  await publishAdsDeliveries(deps, outcome.deliveryIds);
  return outcome.changed;
}
