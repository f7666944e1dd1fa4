import type { Database } from "../../db/client";
import type { MailCaches } from "../deps";
import { acceptedLiveThisMonth } from "../messages/service";

/**
 * The monthly room a send takes before it goes out: a batch before it claims recipients, a transactional
 * mail before it is sent. Counting the month's accepted messages for every batch of 500 would cost more
 * than the rest of the batch's bookkeeping, so the count is read at most every few seconds per customer and
 * this process adds what it records in between. Invariants, within one process:
 * - a send reserves its room first (`reserveMonthlyRoom`) and gives it back once recorded
 *   (`settleMonthlyRoom`, with what was accepted): sends in flight count against the room, so lanes running
 *   at once, or a transactional mail next to them, never take the same room twice;
 * - a fresh reading never loses what this process recorded while it was being read (the larger of the two
 *   is kept), so the limit is never passed by this process's own sends.
 * Mail accepted by other processes is seen at the next read: there the limit can be passed by at most what
 * those processes send in the window. Start and recipient adds check exactly (`assertSendQuota`).
 */
const FRESH_MS = 5_000;

type MeterDeps = { db: Database; caches: Pick<MailCaches, "monthlyReadings"> };

const monthOf = (now: Date) => now.toISOString().slice(0, 7);

async function reading(deps: MeterDeps, customerId: string, now: Date, fresh: boolean) {
  const month = monthOf(now);
  const readings = deps.caches.monthlyReadings;
  const cached = readings.get(customerId);
  // A clock set back (tests) makes the reading stale as well: its age is only trusted when it is positive.
  const age = now.getTime() - (cached?.readAt ?? Number.NEGATIVE_INFINITY);
  if (cached && !fresh && cached.month === month && age >= 0 && age < FRESH_MS) return cached;
  const value = await acceptedLiveThisMonth(deps.db, customerId, now);
  const current = readings.get(customerId);
  if (!current) {
    const created = { month, value, readAt: now.getTime(), inFlight: 0 };
    readings.set(customerId, created);
    return created;
  }
  // Sends recorded while the count ran may be missing from it: the process's own tally is not less.
  current.value = current.month === month ? Math.max(value, current.value) : value;
  current.month = month;
  current.readAt = now.getTime();
  return current;
}

/**
 * Room reserved for one send: `accepted` is the month's count it was judged on. `release` gives back up to
 * `count` of what is still held, `accepted` of those recorded as accepted.
 */
export type MonthlyRoom = { granted: number; heldByOthers: number; accepted: number; release(count: number, accepted: number): void };

/**
 * Up to `want` of the customer's room this month, reserved for a send about to be made (`granted` 0: none
 * left, or all of it held by sends in flight, `heldByOthers`). `fresh` reads the count now (a
 * transactional mail: one read per request, as before the meter). Every reservation must be released.
 */
export async function reserveMonthlyRoom(
  deps: MeterDeps,
  input: { customerId: string; now: Date; limit: number; want: number; fresh?: boolean },
): Promise<MonthlyRoom> {
  const current = await reading(deps, input.customerId, input.now, input.fresh ?? false);
  const granted = Math.max(0, Math.min(input.want, input.limit - current.value - current.inFlight));
  const heldByOthers = current.inFlight;
  current.inFlight += granted;
  let held = granted;
  return {
    granted,
    heldByOthers,
    accepted: current.value,
    release(count, accepted) {
      const given = Math.min(count, held);
      if (given <= 0) return;
      held -= given;
      current.inFlight -= given;
      // Recorded in another month than read (a clock past midnight of the 1st): the next read counts it.
      if (current.month === monthOf(input.now)) current.value += Math.min(accepted, given);
    },
  };
}

/** Adds accepted live messages this process recorded without a reservation (reconciliation) to the reading. */
export function noteAcceptedLive(deps: { caches: Pick<MailCaches, "monthlyReadings"> }, customerId: string, now: Date, count: number): void {
  const cached = deps.caches.monthlyReadings.get(customerId);
  if (cached && cached.month === monthOf(now)) cached.value += count;
}
