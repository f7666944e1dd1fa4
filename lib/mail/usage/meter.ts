import type { Database } from "../../db/client";
import type { MailCaches, MonthlyReading } from "../deps";
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

/**
 * The customer's entry, created empty (never read: `readAt` -Infinity). Its gate keeps a reading of the
 * month's count from counting a send twice (in the count, and again when its commit is tallied) without a
 * reading ever waiting for a send's commit (a transactional mail reads on every request, and a batch's
 * commit of 500 results takes 100 ms and more):
 * - a commit starts only while no reading is under way (it waits for the reading: one short count query);
 * - a reading excludes from its count the messages of every commit under way when it starts (they are not
 *   yet tallied, whether or not their commit lands before the count's snapshot), and adds what those
 *   commits tallied while it ran: each commit is counted once, by its tally.
 * A commit without the list of its messages (reconciliation, rare) makes a reading wait for it instead.
 */
function entryOf(deps: MeterDeps, customerId: string, now: Date): MonthlyReading {
  const readings = deps.caches.monthlyReadings;
  let entry = readings.get(customerId);
  if (!entry) {
    entry = {
      month: monthOf(now),
      value: 0,
      readAt: Number.NEGATIVE_INFINITY,
      inFlight: 0,
      writing: new Set(),
      unlisted: 0,
      drained: [],
      reading: null,
      readTally: 0,
    };
    readings.set(customerId, entry);
  }
  return entry;
}

/**
 * Runs `write` (a commit of sent mail, `messageIds` its messages, null: not known) and `tally` with the
 * commit counted once by any reading (see `entryOf`).
 */
async function recording<T>(entry: MonthlyReading, messageIds: readonly string[] | null, write: () => Promise<T>, tally: (result: T) => void): Promise<T> {
  while (entry.reading) await entry.reading;
  const listed = messageIds ?? [];
  if (messageIds) entry.writing.add(listed);
  else entry.unlisted += 1;
  try {
    const result = await write();
    tally(result);
    return result;
  } finally {
    if (messageIds) entry.writing.delete(listed);
    else {
      entry.unlisted -= 1;
      if (entry.unlisted === 0) for (const wake of entry.drained.splice(0)) wake();
    }
  }
}

/** Adds `accepted` mail of `month` to the entry, and to the reading under way (see `entryOf`). */
function tallyInto(entry: MonthlyReading, month: string, accepted: number): void {
  if (entry.month === month) entry.value += accepted;
  if (entry.reading) entry.readTally += accepted;
}

async function reading(deps: MeterDeps, customerId: string, now: Date, fresh: boolean): Promise<MonthlyReading> {
  const month = monthOf(now);
  const entry = entryOf(deps, customerId, now);
  for (;;) {
    // A clock set back (tests) makes the reading stale as well: its age is only trusted when it is positive.
    const age = now.getTime() - entry.readAt;
    if (!fresh && entry.month === month && age >= 0 && age < FRESH_MS) return entry;
    if (!entry.reading) break;
    // Another reading is under way: wait for it (a fresh one then reads again: that one may predate this call).
    await entry.reading;
  }
  let done = () => {};
  entry.reading = new Promise<void>((resolve) => {
    done = resolve;
  });
  try {
    if (entry.unlisted > 0) await new Promise<void>((wake) => entry.drained.push(wake));
    // No commit starts until this reading ends: the ones under way are all in `writing`.
    entry.readTally = 0;
    const count = await acceptedLiveThisMonth(deps.db, customerId, now, [...entry.writing].flat());
    entry.value = count + entry.readTally;
    entry.month = month;
    entry.readAt = now.getTime();
    return entry;
  } finally {
    entry.reading = null;
    done();
  }
}

/**
 * Room reserved for one send: `accepted` is the month's count it was judged on. `release` gives back up to
 * `count` of what is still held; `settle` runs the commit of what was sent (`messageIds`: the messages it
 * writes) and gives back what is held, `accepted(result)` of it added to the month's tally.
 */
export type MonthlyRoom = {
  granted: number;
  heldByOthers: number;
  accepted: number;
  release(count: number): void;
  settle<T>(messageIds: readonly string[], write: () => Promise<T>, accepted: (result: T) => number): Promise<T>;
};

/**
 * The month's count read now (what `fresh` reads), started ahead of the reservation that passes it as `read`:
 * a transactional mail reads it while its template renders.
 */
export function readMonthNow(deps: MeterDeps, customerId: string, now: Date): Promise<MonthlyReading> {
  return reading(deps, customerId, now, true);
}

/**
 * Up to `want` of the customer's room this month, reserved for a send about to be made (`granted` 0: none
 * left, or all of it held by sends in flight, `heldByOthers`). `fresh` reads the count now (a
 * transactional mail: one read per request, as before the meter; `read`: that reading, started earlier with
 * `readMonthNow`). Every reservation must be released.
 */
export async function reserveMonthlyRoom(
  deps: MeterDeps,
  input: { customerId: string; now: Date; limit: number; want: number; fresh?: boolean; read?: Promise<MonthlyReading> },
): Promise<MonthlyRoom> {
  const current = await (input.read ?? reading(deps, input.customerId, input.now, input.fresh ?? false));
  const granted = Math.max(0, Math.min(input.want, input.limit - current.value - current.inFlight));
  const heldByOthers = current.inFlight;
  current.inFlight += granted;
  let held = granted;
  const giveBack = (count: number, accepted: number) => {
    const given = Math.min(count, held);
    if (given <= 0) return;
    held -= given;
    current.inFlight -= given;
    // Recorded in another month than read (a clock past midnight of the 1st): the next read counts it.
    if (accepted > 0) tallyInto(current, monthOf(input.now), Math.min(accepted, given));
  };
  return {
    granted,
    heldByOthers,
    accepted: current.value,
    release: (count) => giveBack(count, 0),
    settle: (messageIds, write, accepted) => recording(current, messageIds, write, (result) => giveBack(Number.POSITIVE_INFINITY, accepted(result))),
  };
}

/** Runs `write` (a commit of sent mail, `messageIds` its messages) under the room's gate when there is a room, on its own otherwise. */
export async function settleRoom<T>(
  room: MonthlyRoom | null,
  messageIds: readonly string[],
  write: () => Promise<T>,
  accepted: (result: T) => number,
): Promise<T> {
  return room ? room.settle(messageIds, write, accepted) : write();
}

/**
 * Runs `write`, a commit of live messages accepted without a reservation (reconciliation), and adds
 * `accepted(result)` to the reading; a reading asked for meanwhile waits for it (its messages are not listed).
 */
export async function recordAcceptedLive<T>(
  deps: { caches: Pick<MailCaches, "monthlyReadings"> },
  customerId: string,
  now: Date,
  write: () => Promise<T>,
  accepted: (result: T) => number,
): Promise<T> {
  const cached = deps.caches.monthlyReadings.get(customerId);
  if (!cached) return write();
  return recording(cached, null, write, (result) => tallyInto(cached, monthOf(now), accepted(result)));
}
