import type { Database } from "../../db/client";
import { acceptedLiveThisMonth } from "../messages/service";

/**
 * The monthly count a batch checks before it claims recipients. Counting the month's accepted messages
 * for every batch of 500 would cost more than the rest of the batch's bookkeeping, so the count is read
 * at most every few seconds per customer and the batches of this process add what they record in between.
 * Mail accepted by other processes in that window is seen at the next read: the limit can be passed by at
 * most what those processes send in the window. Start and recipient adds check exactly (`assertSendQuota`).
 */
const FRESH_MS = 5_000;

type Reading = { month: string; value: number; readAt: number };
const readings = new Map<string, Reading>();

const monthOf = (now: Date) => now.toISOString().slice(0, 7);

export async function monthlyAcceptedLive(db: Database, customerId: string, now: Date): Promise<number> {
  const month = monthOf(now);
  const cached = readings.get(customerId);
  if (cached && cached.month === month && performance.now() - cached.readAt < FRESH_MS) return cached.value;
  const value = await acceptedLiveThisMonth(db, customerId, now);
  readings.set(customerId, { month, value, readAt: performance.now() });
  return value;
}

/** Adds accepted live messages just recorded by this process to the cached reading. */
export function noteAcceptedLive(customerId: string, now: Date, count: number): void {
  const cached = readings.get(customerId);
  if (cached && cached.month === monthOf(now)) cached.value += count;
}
