import { and, inArray, lt, sql } from "drizzle-orm";
import type { CoreDeps } from "../../core/context";
import { mailMessageEvents, mailWebhookDeliveries } from "../../db/schema";
import { MESSAGE_HISTORY_DAYS } from "../messages/service";

const DAY_MS = 86_400_000;
/** Finished webhook deliveries are kept a month for support questions ("did you send it?"). */
const WEBHOOK_DELIVERY_RETENTION_DAYS = 30;
const BATCH = 5000;
/** Bounds one run (a serverless function has a time limit); the next run continues. */
const MAX_BATCHES = 100;

/**
 * Deletes message history older than 90 days (the spec's retention) in batches; the message rows and
 * their state (`delivered_at`, `bounced_at`, …) stay. Also drops finished webhook deliveries after 30 days.
 */
export async function pruneMessageHistory(deps: Pick<CoreDeps, "db" | "clock">): Promise<{ events: number; deliveries: number }> {
  const now = deps.clock.now().getTime();
  const cutoff = new Date(now - MESSAGE_HISTORY_DAYS * DAY_MS);
  let events = 0;
  for (let batch = 0; batch < MAX_BATCHES; batch++) {
    const old = deps.db.select({ id: mailMessageEvents.id }).from(mailMessageEvents).where(lt(mailMessageEvents.occurredAt, cutoff)).limit(BATCH);
    const deleted = await deps.db.delete(mailMessageEvents).where(inArray(mailMessageEvents.id, old)).returning({ id: mailMessageEvents.id });
    events += deleted.length;
    if (deleted.length < BATCH) break;
  }
  const deliveryCutoff = new Date(now - WEBHOOK_DELIVERY_RETENTION_DAYS * DAY_MS);
  const deliveries = await deps.db
    .delete(mailWebhookDeliveries)
    .where(and(sql`${mailWebhookDeliveries.status} <> 'pending'`, lt(mailWebhookDeliveries.completedAt, deliveryCutoff)))
    .returning({ id: mailWebhookDeliveries.id });
  return { events, deliveries: deliveries.length };
}
