import { inArray, lt } from "drizzle-orm";
import type { CoreDeps } from "../../core/context";
import { pruneFinishedDeliveries } from "../../core/webhooks/engine";
import { mailMessageEvents } from "../../db/schema";
import { MESSAGE_HISTORY_DAYS } from "../messages/service";
import { pruneMessageContents } from "../messages/content";
import { MAIL_WEBHOOKS } from "../webhooks/emit";

const DAY_MS = 86_400_000;
const BATCH = 5000;
/** Bounds one run (a serverless function has a time limit); the next run continues. */
const MAX_BATCHES = 100;

/**
 * Deletes message history older than 90 days (the spec's retention) in batches; the message rows and
 * their state (`delivered_at`, `bounced_at`, …) stay. Also drops transactional contents after their 45 days
 * and finished webhook deliveries after 30 days.
 */
export async function pruneMessageHistory(deps: Pick<CoreDeps, "db" | "clock">): Promise<{ events: number; contents: number; deliveries: number }> {
  const now = deps.clock.now().getTime();
  const cutoff = new Date(now - MESSAGE_HISTORY_DAYS * DAY_MS);
  let events = 0;
  for (let batch = 0; batch < MAX_BATCHES; batch++) {
    const old = deps.db.select({ id: mailMessageEvents.id }).from(mailMessageEvents).where(lt(mailMessageEvents.occurredAt, cutoff)).limit(BATCH);
    const deleted = await deps.db.delete(mailMessageEvents).where(inArray(mailMessageEvents.id, old)).returning({ id: mailMessageEvents.id });
    events += deleted.length;
    if (deleted.length < BATCH) break;
  }
  const contents = await pruneMessageContents(deps.db, deps.clock.now());
  return { events, contents, deliveries: await pruneFinishedDeliveries(MAIL_WEBHOOKS, deps) };
}
