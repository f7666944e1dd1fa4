import { and, eq, isNotNull, isNull, sql } from "drizzle-orm";
import { isDatabaseUnavailable } from "../../core/database-unavailable";
import { adsAccounts, adsAds, adsInsightSnapshots, adsInsightSyncs } from "../../db/schema";
import type { Database } from "../../db/client";
import { col, cols, queryRows } from "../../db/sql";
import type { AdsDeps } from "../deps";
import { connectAdAccount } from "../onboarding/service";
import type { DailyAdInsight } from "../platform/client";
import { PlatformError } from "../platform/errors";
import { rebuildBlocks } from "./blocks";
import { addDays, dayIn } from "./calendar";
import { INSIGHTS_SNAPSHOT_TOPIC, queueSnapshot, type SnapshotResume } from "./snapshot-queue";
import { warmWindows } from "./warm";

export { INSIGHTS_SNAPSHOT_TOPIC };

/**
 * Daily insight snapshots (the spec: metrics come from daily snapshots, not live calls).
 *
 * Invariants: a day's row is overwritten by the next pull of that day and never duplicated (primary key,
 * upsert); a row whose numbers did not change is not written at all, so re-running a day changes nothing
 * but corrected values. `syncedThrough` moves only after every day and breakdown of a run was stored, so
 * a failed or rate-limited account pulls the same days again on its next run: no day is ever lost.
 */

/** A newly onboarded account backfills this many days (today included). */
const BACKFILL_DAYS = 90;
/** Conversions are attributed late: the last 7 days are pulled again on every run. */
const ATTRIBUTION_WINDOW_DAYS = 7;
/** Days per Graph query: keeps each answer (ads × days × breakdown values) to a few pages. */
const CHUNK_DAYS = 10;
/** Rows per insert statement. */
const WRITE_BATCH = 5_000;
/** A rate-limited account is put back on the queue at most this many times per run, then left to the next run. */
const MAX_RATE_LIMIT_DELAYS = 5;
/** Seconds between the fan-out's messages, so accounts do not hit the platform at the same moment. */
const FAN_OUT_SPACING_SECONDS = 2;

/** The action Graph reports for a pixel purchase: what `conversions` and `conversion_value` count. */
const CONVERSION_ACTION_TYPE = "offsite_conversion.fb_pixel_purchase";

/**
 * The Graph breakdown sets pulled per day; each is stored as its own dimension (`''` = no breakdown), so a
 * query reads exactly the rows of the breakdown it asks for. `platform_position` exists in Graph only
 * together with `publisher_platform`.
 */
const SNAPSHOT_DIMENSIONS = [
  "",
  "age",
  "gender",
  "age,gender",
  "country",
  "publisher_platform",
  "publisher_platform,platform_position",
  "impression_device",
  "device_platform",
] as const;

export type SnapshotResult = { since: string; until: string; rows: number; written: number; skipped_rows: number };

/** `"12.345"` → 1235 hundredths, exactly (half up), without float arithmetic. Empty or missing → 0. */
function toHundredths(value: string | undefined): number {
  if (value === undefined || value === "") return 0;
  const match = /^(-?)(\d+)(?:\.(\d*))?$/.exec(value.trim());
  if (!match) return 0;
  const [, sign, whole = "0", fraction = ""] = match;
  const padded = `${fraction}000`;
  let hundredths = Number(whole) * 100 + Number(padded.slice(0, 2));
  if (Number(padded[2]) >= 5) hundredths += 1;
  return sign === "-" ? -hundredths : hundredths;
}

function whole(value: string | undefined): number {
  if (value === undefined || value === "") return 0;
  const parsed = Number.parseInt(value, 10);
  return Number.isFinite(parsed) ? parsed : 0;
}

function actionSum(list: { action_type: string; value: string }[] | undefined, parse: (value: string) => number): number {
  return (list ?? []).filter((entry) => entry.action_type === CONVERSION_ACTION_TYPE).reduce((sum, entry) => sum + parse(entry.value), 0);
}

type SnapshotRow = typeof adsInsightSnapshots.$inferSelect;

function toRow(customerId: string, dimension: string, row: DailyAdInsight, ad: { id: string; adSetId: string }, pulledAt: Date): SnapshotRow {
  const [first, second] = dimension === "" ? [] : dimension.split(",");
  const breakdownValue = (name: string | undefined) => (name ? String((row as Record<string, unknown>)[name] ?? "") : "");
  return {
    customerId,
    dimension,
    date: row.date_start,
    adId: ad.id,
    adSetId: ad.adSetId,
    value1: breakdownValue(first),
    value2: breakdownValue(second),
    impressions: whole(row.impressions),
    reach: whole(row.reach),
    clicks: whole(row.clicks),
    spendMinor: toHundredths(row.spend),
    conversions: actionSum(row.actions, whole),
    conversionValueMinor: actionSum(row.action_values, toHundredths),
    pulledAt,
  };
}

/**
 * Upserts rows in statements of `WRITE_BATCH`, each one `unnest` over array parameters (a handful of
 * parameters instead of thousands); a row is rewritten only when one of its numbers changed. Returns how
 * many rows were written.
 */
async function upsertSnapshots(db: Database, rows: SnapshotRow[]): Promise<number> {
  const t = adsInsightSnapshots;
  const metrics = [t.impressions, t.reach, t.clicks, t.spendMinor, t.conversions, t.conversionValueMinor];
  const updated = [...metrics, t.pulledAt];
  let written = 0;
  for (let start = 0; start < rows.length; start += WRITE_BATCH) {
    const batch = rows.slice(start, start + WRITE_BATCH);
    const column = <T>(pick: (row: SnapshotRow) => T) => sql.param(batch.map(pick));
    const [result] = await queryRows<{ written: number }>(
      db,
      sql`with written as (
        insert into ${t} (${cols(t.customerId, t.dimension, t.date, t.adId, t.adSetId, t.value1, t.value2, ...metrics, t.pulledAt)})
        select * from unnest(${column((r) => r.customerId)}::uuid[], ${column((r) => r.dimension)}::text[], ${column((r) => r.date)}::date[], ${column((r) => r.adId)}::uuid[],
          ${column((r) => r.adSetId)}::uuid[], ${column((r) => r.value1)}::text[], ${column((r) => r.value2)}::text[], ${column((r) => r.impressions)}::int8[], ${column((r) => r.reach)}::int8[],
          ${column((r) => r.clicks)}::int8[], ${column((r) => r.spendMinor)}::int8[], ${column((r) => r.conversions)}::int8[], ${column((r) => r.conversionValueMinor)}::int8[],
          ${column((r) => r.pulledAt.toISOString())}::timestamptz[])
        on conflict (${cols(t.customerId, t.dimension, t.date, t.adId, t.value1, t.value2)}) do update set
          ${sql.join(
            updated.map((column) => sql`${col(column)} = excluded.${col(column)}`),
            sql`, `,
          )}
        where (${sql.join(metrics, sql`, `)}) is distinct from (${sql.join(
          metrics.map((column) => sql`excluded.${col(column)}`),
          sql`, `,
        )})
        returning 1)
      select count(*)::int as written from written`,
    );
    written += result?.written ?? 0;
  }
  return written;
}

/**
 * Pulls one customer's ad account: the days after `syncedThrough` (a new account: the last 90 days) and
 * always the last 7 days, every breakdown, and upserts them. Rows for ads not created through us are
 * skipped (they have no internal id to report under).
 */
/** A pull stopped by a platform rate limit, with the position to go on from; what came before is stored. */
class SnapshotInterrupted extends Error {
  constructor(
    readonly platformError: PlatformError,
    readonly resume: SnapshotResume,
  ) {
    super(platformError.message);
    this.name = "SnapshotInterrupted";
  }
}

function position(resume: SnapshotResume): string {
  return `${resume.chunk}#${String(resume.dimension).padStart(2, "0")}`;
}

export async function snapshotAccount(deps: AdsDeps, customerId: string, resume?: SnapshotResume): Promise<SnapshotResult> {
  const account = await connectAdAccount(deps, customerId);
  const now = deps.clock.now();
  let [sync] = await deps.db.select().from(adsInsightSyncs).where(eq(adsInsightSyncs.customerId, customerId));
  if (!sync) {
    const details = await account.session.getAdAccount(account.adAccountId);
    const values = { timezoneName: details.timezone_name ?? "UTC", currency: details.currency ?? "EUR" };
    [sync] = await deps.db
      .insert(adsInsightSyncs)
      .values({ customerId, ...values })
      .onConflictDoUpdate({ target: adsInsightSyncs.customerId, set: values })
      .returning();
    if (!sync) throw new Error("insight sync row missing after upsert");
  }
  const today = dayIn(sync.timezoneName, now);
  const windowStart = addDays(today, -(ATTRIBUTION_WINDOW_DAYS - 1));
  const backfillStart = addDays(today, -(BACKFILL_DAYS - 1));
  const afterSynced = sync.syncedThrough ? addDays(sync.syncedThrough, 1) : backfillStart;
  const earliestMissing = afterSynced < windowStart ? afterSynced : windowStart;
  // A resumed pull keeps its first day (the days before its position are stored), so the run ends as one.
  const since = resume?.since ?? (earliestMissing > backfillStart ? earliestMissing : backfillStart);

  const ads = await deps.db
    .select({ id: adsAds.id, adSetId: adsAds.adSetId, platformAdId: adsAds.platformAdId })
    .from(adsAds)
    .where(eq(adsAds.customerId, customerId));
  const byPlatformId = new Map(ads.map((ad) => [ad.platformAdId, ad]));

  let rows = 0;
  let written = 0;
  let skipped = 0;
  try {
    for (let from = resume?.chunk ?? since; from <= today; from = addDays(from, CHUNK_DAYS)) {
      const until = addDays(from, CHUNK_DAYS - 1) < today ? addDays(from, CHUNK_DAYS - 1) : today;
      for (const [index, dimension] of SNAPSHOT_DIMENSIONS.entries()) {
        if (resume && from === resume.chunk && index < resume.dimension) continue;
        const breakdowns = dimension === "" ? [] : dimension.split(",");
        let answer: DailyAdInsight[];
        try {
          answer = await account.session.getDailyAdInsights(account.adAccountId, { since: from, until, breakdowns });
        } catch (error) {
          if (error instanceof PlatformError && error.kind === "rate_limited") throw new SnapshotInterrupted(error, { since, chunk: from, dimension: index });
          throw error;
        }
        const batch: SnapshotRow[] = [];
        for (const row of answer) {
          const ad = byPlatformId.get(row.ad_id);
          if (!ad) {
            skipped++;
            continue;
          }
          batch.push(toRow(customerId, dimension, row, ad, now));
        }
        rows += batch.length;
        written += await upsertSnapshots(deps.db, batch);
      }
    }
    await rebuildBlocks(deps.db, customerId, since, today);
  } catch (error) {
    const platformError = error instanceof SnapshotInterrupted ? error.platformError : error instanceof PlatformError ? error : undefined;
    await deps.db
      .update(adsInsightSyncs)
      .set({ lastRunAt: now, lastError: platformError ? `${platformError.kind}: ${platformError.message}` : "internal error", updatedAt: now })
      .where(eq(adsInsightSyncs.customerId, customerId));
    throw error;
  }
  await deps.db
    .update(adsInsightSyncs)
    .set({ syncedThrough: today, lastRunAt: now, lastError: null, updatedAt: now })
    .where(eq(adsInsightSyncs.customerId, customerId));
  await warmWindows(deps, customerId);
  return { since, until: today, rows, written, skipped_rows: skipped };
}

/** Customers whose ad account is connected with a token the platform has not refused. */
async function onboardedAdAccounts(db: Database): Promise<string[]> {
  const rows = await db
    .select({ customerId: adsAccounts.customerId })
    .from(adsAccounts)
    .where(and(isNotNull(adsAccounts.adAccountId), isNotNull(adsAccounts.tokenVerifiedAt), isNull(adsAccounts.tokenInvalidAt)))
    .orderBy(adsAccounts.customerId);
  return rows.map((row) => row.customerId);
}

/**
 * The daily cron's fan-out: one queue message per onboarded ad account, spaced `FAN_OUT_SPACING_SECONDS`
 * apart. The message is deduplicated per account and day.
 */
export async function fanOutSnapshots(deps: Pick<AdsDeps, "db" | "queue" | "clock">): Promise<{ accounts: number }> {
  const customers = await onboardedAdAccounts(deps.db);
  const day = deps.clock.now().toISOString().slice(0, 13);
  for (const [index, customerId] of customers.entries()) {
    await queueSnapshot(deps.queue, customerId, { delaySeconds: index * FAN_OUT_SPACING_SECONDS, deduplicationId: `insights-${customerId}-${day}` });
  }
  return { accounts: customers.length };
}

/**
 * The worker of one account. A platform rate limit (codes 4, 17, 613, 80000-series, or the client pausing
 * the account at high usage) puts the account back on the queue after the time Graph asks for, carrying
 * the position the pull reached, so the next delivery goes on from there instead of starting over: the
 * fan-out slows down, never fails. Only delays without progress count towards `MAX_RATE_LIMIT_DELAYS`
 * (then the next daily run takes over). Any other failure is logged and left to the next daily run, which
 * pulls the same days again.
 */
export function registerInsightsSnapshotWorker(deps: AdsDeps): void {
  deps.queue.register(INSIGHTS_SNAPSHOT_TOPIC, async (body) => {
    const customerId = typeof body.customer_id === "string" ? body.customer_id : "";
    const delays = typeof body.rate_limit_delays === "number" ? body.rate_limit_delays : 0;
    const resume = readResume(body.resume);
    if (!customerId) return;
    try {
      const result = await snapshotAccount(deps, customerId, resume);
      deps.logger.info("insights snapshot stored", { customer_id: customerId, ...result, ...(resume ? { resumed_from: position(resume) } : {}) });
    } catch (error) {
      if (error instanceof SnapshotInterrupted) {
        const progressed = !resume || position(error.resume) > position(resume);
        const nextDelays = progressed ? 0 : delays + 1;
        if (nextDelays <= MAX_RATE_LIMIT_DELAYS) {
          const delaySeconds = Math.max(60, error.platformError.retryAfterSeconds ?? 0) * 2 ** nextDelays;
          deps.logger.warn("insights snapshot rate limited; the account goes on later from where it stopped", {
            customer_id: customerId,
            code: error.platformError.code,
            subcode: error.platformError.subcode,
            delay_seconds: delaySeconds,
            resume: error.resume,
          });
          await queueSnapshot(deps.queue, customerId, { delaySeconds, rateLimitDelays: nextDelays, resume: error.resume });
          return;
        }
      }
      // The database unreachable for a moment (a restart, a failover): thrown, so the queue delivers the run
      // again (local retries, QStash redelivery) instead of leaving the days missing until tomorrow's run.
      if (isDatabaseUnavailable(error)) throw error;
      const platformError = error instanceof SnapshotInterrupted ? error.platformError : error;
      deps.logger.warn("insights snapshot failed; the next run pulls the same days again", {
        customer_id: customerId,
        error:
          platformError instanceof PlatformError
            ? { kind: platformError.kind, code: platformError.code, subcode: platformError.subcode, fbtrace_id: platformError.fbtraceId }
            : platformError instanceof Error
              ? platformError.message
              : String(platformError),
      });
    }
  });
}

function readResume(value: unknown): SnapshotResume | undefined {
  if (!value || typeof value !== "object") return undefined;
  const { since, chunk, dimension } = value as Record<string, unknown>;
  const day = (text: unknown): text is string => typeof text === "string" && /^\d{4}-\d{2}-\d{2}$/.test(text);
  if (!day(since) || !day(chunk) || typeof dimension !== "number" || !Number.isInteger(dimension) || dimension < 0 || dimension >= SNAPSHOT_DIMENSIONS.length)
    return undefined;
  return { since, chunk, dimension };
}
