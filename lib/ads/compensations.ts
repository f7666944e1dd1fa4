import { and, asc, eq, inArray, lte } from "drizzle-orm";
import type { Tx } from "../db/client";
import { adsCompensations, type compensationKinds } from "../db/schema";
import { ApiError } from "../core/errors";
import type { AdsDeps } from "./deps";
import { connectCredentials } from "./onboarding/service";
import { PlatformError, type GraphSession } from "./platform";

/**
 * No orphan objects upstream. A create that touches the platform runs in three steps: the platform's
 * create, a pending `ads_compensations` row naming the new object, then the local write in a transaction
 * that also deletes that row. Invariants:
 * - An object whose local record was committed has no pending row (deleted in the same transaction), so
 *   it is never compensated.
 * - An object whose local write failed keeps its pending row until the platform confirmed the object
 *   deleted (or already gone): the failing request compensates at once; if that fails too, or the process
 *   died in between, the `ads-compensations` sweep retries with backoff until it succeeds. The row then
 *   stays as the record, `done` with `settled_at`.
 * - The sweep touches a row only after `COMPENSATION_GRACE_MS` (the request that made it may still be
 *   recording the object) and claims it by a conditional update; the recording transaction deletes the row
 *   only while it is pending and rolls back otherwise, so an object is never both recorded and deleted.
 */

export type CompensationKind = (typeof compensationKinds)[number];
type Row = typeof adsCompensations.$inferSelect;

/** A request records its object within this; the sweep leaves younger rows alone. */
export const COMPENSATION_GRACE_MS = 5 * 60_000;
/** A claimed row is the claimer's for this long (a sweep that died releases it by time). */
const CLAIM_MS = 2 * 60_000;
const MAX_BACKOFF_MS = 3600_000;
const SWEEP_BATCH = 100;

export type PendingCompensation = { id: string; customerId: string; kind: CompensationKind; platformId: string };

/**
 * Records an object just created upstream as not yet recorded here. If even this write fails (the
 * database is down), the object is deleted upstream at once and the error goes on.
 */
export async function openCompensation(
  deps: AdsDeps,
  session: GraphSession,
  input: { customerId: string; kind: CompensationKind; platformId: string },
): Promise<PendingCompensation> {
  try {
    const [row] = await deps.db
      .insert(adsCompensations)
      .values({ ...input, nextAttemptAt: new Date(deps.clock.now().getTime() + COMPENSATION_GRACE_MS) })
      .returning({ id: adsCompensations.id });
    if (!row) throw new Error("compensation insert returned nothing");
    return { ...input, id: row.id };
  } catch (error) {
    await undo(session, input).catch((undoError: unknown) =>
      deps.logger.error("a platform object could not be recorded nor deleted: it is orphaned upstream", {
        customer_id: input.customerId,
        kind: input.kind,
        platform_id: input.platformId,
        error: undoError instanceof Error ? undoError.message : String(undoError),
      }),
    );
    throw error;
  }
}

/**
 * In the transaction that records the objects: their pending rows go. A row the sweep has claimed
 * meanwhile (it is deleting the object upstream) makes the transaction fail, so nothing is recorded.
 */
export async function closeCompensations(tx: Tx, pending: readonly PendingCompensation[]): Promise<void> {
  if (pending.length === 0) return;
  const ids = pending.map((entry) => entry.id);
  const deleted = await tx
    .delete(adsCompensations)
    .where(and(inArray(adsCompensations.id, ids), eq(adsCompensations.status, "pending")))
    .returning({ id: adsCompensations.id });
  if (deleted.length !== ids.length) throw new Error("a platform object was claimed for compensation before it was recorded");
}

/**
 * Runs `work` (the rest of the create: more platform calls and the recording transaction); when it
 * fails, every object in `pending` is deleted upstream, newest first (an ad before its creative), and the
 * error goes on unchanged.
 */
export async function compensateOnFailure<T>(
  deps: AdsDeps,
  session: GraphSession,
  pending: readonly PendingCompensation[],
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    for (const entry of [...pending].reverse()) await settle(deps, session, entry);
    throw error;
  }
}

/** An object already gone upstream counts as compensated (a repeated delete, a delete in the platform's tools). */
function alreadyGone(error: unknown): boolean {
  return error instanceof PlatformError && error.code === 100 && error.subcode === 33;
}

async function undo(session: GraphSession, entry: { kind: CompensationKind; platformId: string }): Promise<void> {
  try {
    if (entry.kind === "audience") await session.deleteCustomAudience(entry.platformId);
    else await session.deleteObject(entry.platformId);
  } catch (error) {
    if (!alreadyGone(error)) throw error;
  }
}

/**
 * One attempt: delete upstream, then mark the row `done`; a failure is recorded on the row with the time
 * of the next attempt (exponential, at most an hour). Never throws: the caller's own error matters more.
 */
async function settle(deps: AdsDeps, session: GraphSession | undefined, entry: PendingCompensation, attempts = 1): Promise<boolean> {
  const now = deps.clock.now();
  try {
    await undo(session ?? (await connectCredentials(deps, entry.customerId)), entry);
    await deps.db
      .update(adsCompensations)
      .set({ status: "done", settledAt: now, lastError: null, attempts })
      .where(and(eq(adsCompensations.id, entry.id), eq(adsCompensations.status, "pending")));
    deps.logger.info("platform object of a failed create deleted upstream", { customer_id: entry.customerId, kind: entry.kind, platform_id: entry.platformId });
    return true;
  } catch (error) {
    const reason =
      error instanceof PlatformError
        ? `${error.kind}${error.code === undefined ? "" : ` ${error.code}`}: ${error.message}`
        : error instanceof ApiError
          ? `${error.code}: ${error.message}`
          : "internal error";
    deps.logger.warn("compensating a failed create upstream failed; the sweep retries", {
      customer_id: entry.customerId,
      kind: entry.kind,
      platform_id: entry.platformId,
      reason,
    });
    const delay = Math.min(MAX_BACKOFF_MS, 60_000 * 2 ** Math.max(0, attempts - 1));
    await deps.db
      .update(adsCompensations)
      .set({ attempts, lastError: reason.slice(0, 500), nextAttemptAt: new Date(now.getTime() + delay) })
      .where(and(eq(adsCompensations.id, entry.id), eq(adsCompensations.status, "pending")))
      .catch(() => undefined);
    return false;
  }
}

/**
 * The `ads-compensations` cron: pending rows past their time (an immediate compensation that failed, or
 * a request that never got to record its object), claimed one by one by a conditional update.
 */
export async function sweepCompensations(deps: AdsDeps): Promise<{ settled: number; failed: number }> {
  const now = deps.clock.now();
  const due: Row[] = await deps.db
    .select()
    .from(adsCompensations)
    .where(and(eq(adsCompensations.status, "pending"), lte(adsCompensations.nextAttemptAt, now)))
    .orderBy(asc(adsCompensations.nextAttemptAt))
    .limit(SWEEP_BATCH);
  let settled = 0;
  let failed = 0;
  for (const row of due) {
    const [claimed] = await deps.db
      .update(adsCompensations)
      .set({ nextAttemptAt: new Date(now.getTime() + CLAIM_MS) })
      .where(and(eq(adsCompensations.id, row.id), eq(adsCompensations.status, "pending"), eq(adsCompensations.nextAttemptAt, row.nextAttemptAt)))
      .returning();
    if (!claimed) continue;
    if (await settle(deps, undefined, claimed, claimed.attempts + 1)) settled++;
    else failed++;
  }
  return { settled, failed };
}
