import type { Database } from "../../db/client";
import type { MailCaches } from "../deps";
import { acceptedLiveThisMonth } from "../messages/service";

/**
 * The monthly count a batch checks before it claims recipients. Counting the month's accepted messages
 * for every batch of 500 would cost more than the rest of the batch's bookkeeping, so the count is read
 * at most every few seconds per customer and the batches of this process add what they record in between.
 * Mail accepted by other processes in that window is seen at the next read: the limit can be passed by at
 * most what those processes send in the window. Start and recipient adds check exactly (`assertSendQuota`).
 */
const FRESH_MS = 5_000;

type MeterDeps = { db: Database; caches: Pick<MailCaches, "monthlyReadings"> };

const monthOf = (now: Date) => now.toISOString().slice(0, 7);

export async function monthlyAcceptedLive(deps: MeterDeps, customerId: string, now: Date): Promise<number> {
  const month = monthOf(now);
  const readings = deps.caches.monthlyReadings;
  const cached = readings.get(customerId);
  // A clock set back (tests) makes the reading stale as well: its age is only trusted when it is positive.
  const age = now.getTime() - (cached?.readAt ?? Number.NEGATIVE_INFINITY);
  if (cached && cached.month === month && age >= 0 && age < FRESH_MS) return cached.value;
  const value = await acceptedLiveThisMonth(deps.db, customerId, now);
  readings.set(customerId, { month, value, readAt: now.getTime() });
  return value;
}

/** Adds accepted live messages just recorded by this process to the cached reading. */
export function noteAcceptedLive(deps: { caches: Pick<MailCaches, "monthlyReadings"> }, customerId: string, now: Date, count: number): void {
  const cached = deps.caches.monthlyReadings.get(customerId);
  if (cached && cached.month === monthOf(now)) cached.value += count;
}
