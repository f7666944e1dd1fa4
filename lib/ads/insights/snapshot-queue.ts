import type { Queue } from "../../adapters/queue";

/** The queue topic of one ad account's snapshot pull (the daily fan-out's and onboarding's message). */
export const INSIGHTS_SNAPSHOT_TOPIC = "ads-insights-snapshot";

/**
 * Where a pull that a rate limit interrupted goes on: the run's first day, the chunk's first day and the
 * index of the breakdown set; everything before that position is stored already.
 */
export type SnapshotResume = { since: string; chunk: string; dimension: number };

/**
 * Publishes one account's snapshot pull; `rate_limit_delays` counts how often a rate limit put it back
 * without progress, `resume` is where an interrupted pull goes on.
 */
export async function queueSnapshot(
  queue: Pick<Queue, "publish">,
  customerId: string,
  options: { deduplicationId?: string; delaySeconds?: number; rateLimitDelays?: number; resume?: SnapshotResume },
): Promise<void> {
  await queue.publish(
    INSIGHTS_SNAPSHOT_TOPIC,
    { customer_id: customerId, rate_limit_delays: options.rateLimitDelays ?? 0, ...(options.resume ? { resume: options.resume } : {}) },
    {
      ...(options.deduplicationId ? { deduplicationId: options.deduplicationId } : {}),
      ...(options.delaySeconds ? { delaySeconds: options.delaySeconds } : {}),
    },
  );
}
