import type { Queue } from "../../adapters/queue";

/** The queue topic of one ad account's snapshot pull (the daily fan-out's and onboarding's message). */
export const INSIGHTS_SNAPSHOT_TOPIC = "ads-insights-snapshot";

/** Publishes one account's snapshot pull; `rate_limit_delays` counts how often a rate limit put it back. */
export async function queueSnapshot(
  queue: Pick<Queue, "publish">,
  customerId: string,
  options: { deduplicationId?: string; delaySeconds?: number; rateLimitDelays?: number },
): Promise<void> {
  await queue.publish(
    INSIGHTS_SNAPSHOT_TOPIC,
    { customer_id: customerId, rate_limit_delays: options.rateLimitDelays ?? 0 },
    {
      ...(options.deduplicationId ? { deduplicationId: options.deduplicationId } : {}),
      ...(options.delaySeconds ? { delaySeconds: options.delaySeconds } : {}),
    },
  );
}
