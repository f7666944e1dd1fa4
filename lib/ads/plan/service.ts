import { and, asc, desc, eq, gt, gte, lte, sql, type AnyColumn, type SQL } from "drizzle-orm";
import type { Database, Tx } from "../../db/client";
import { adsInsightSnapshots, adsPlanSelections, adsSettings, adsStages } from "../../db/schema";
import type { AdsAccess, CoreDeps } from "../../core/context";
import { ConflictError } from "../../core/errors";
import { addDays, daysInMonth } from "../insights/calendar";
import { adsPublishedThisMonth } from "./published";
import type { z } from "zod";
import type { ChangeStage, Deactivation, Plan, PlanUsage, StageChange } from "./schema";

/**
 * The plan (DESIGN §5). A cycle is a calendar month (UTC), the same month the included ads are counted in.
 * The stage of a cycle is the higher of the stage the customer selected and the stage its real spend in
 * that cycle reaches, so it follows spend retroactively: crossing 2,500 EUR on the 20th makes the whole
 * month Growth (base fee and media fee). An upgrade selects a higher stage from the running cycle's start
 * (its inclusions apply at once); a downgrade is selected from the next cycle's start.
 */

type Stage = AdsAccess["stage"];
const STAGE_ORDER: readonly Stage[] = adsStages;

type StageTerms = {
  baseFeeCents: number;
  /** Media fee in basis points of the spend (500 = 5 %). */
  mediaFeeBasisPoints: number;
  /** Included ads per cycle; null = as agreed (enterprise: the operator's `enterprise_included_ads`, null = no cap). */
  includedAds: number | null;
  /** Spend the stage covers per cycle, in cents; spend above it moves the cycle to the next stage. */
  includedSpendCents: number | null;
};

/** The plan table of the spec. Enterprise is "from 1,500 EUR" and "1–2 %": 1,500 EUR and 2 % unless agreed otherwise. */
const STAGE_TERMS: Record<Stage, StageTerms> = {
  starter: { baseFeeCents: 14_900, mediaFeeBasisPoints: 500, includedAds: 5, includedSpendCents: 250_000 },
  growth: { baseFeeCents: 29_900, mediaFeeBasisPoints: 400, includedAds: 25, includedSpendCents: 1_000_000 },
  scale: { baseFeeCents: 59_900, mediaFeeBasisPoints: 300, includedAds: 100, includedSpendCents: 5_000_000 },
  enterprise: { baseFeeCents: 150_000, mediaFeeBasisPoints: 200, includedAds: null, includedSpendCents: null },
};

const rank = (stage: Stage) => STAGE_ORDER.indexOf(stage);
const higher = (a: Stage, b: Stage): Stage => (rank(a) >= rank(b) ? a : b);

/** The lowest stage whose included spend covers `spendCents`. */
function stageForSpend(spendCents: number): Stage {
  for (const stage of STAGE_ORDER) {
    const covered = STAGE_TERMS[stage].includedSpendCents;
    if (covered === null || spendCents <= covered) return stage;
  }
  return "enterprise";
}

function feeCents(stage: Stage, spendCents: number): number {
  const terms = STAGE_TERMS[stage];
  return terms.baseFeeCents + Math.round((spendCents * terms.mediaFeeBasisPoints) / 10_000);
}

type Cycle = { start: string; end: string; days: number; elapsedDays: number; nextStart: string };

function cycleOf(now: Date): Cycle {
  const today = now.toISOString().slice(0, 10);
  const start = `${today.slice(0, 7)}-01`;
  const days = daysInMonth(today);
  const end = addDays(start, days - 1);
  return { start, end, days, elapsedDays: Number(today.slice(8, 10)), nextStart: addDays(end, 1) };
}

type Settings = { accountState: AdsAccess["accountState"]; stage: Stage; enterpriseIncludedAds: number | null };

async function settingsOf(db: Database | Tx, customerId: string): Promise<Settings> {
  const [row] = await db.select().from(adsSettings).where(eq(adsSettings.customerId, customerId));
  return row
    ? { accountState: row.accountState, stage: row.stage, enterpriseIncludedAds: row.enterpriseIncludedAds }
    : { accountState: "active", stage: "starter", enterpriseIncludedAds: null };
}

/** The selected stage of the cycle starting `cycleStart`, and a later selection already made (a downgrade). */
async function selectionOf(db: Database | Tx, customerId: string, cycleStart: string, fallback: Stage) {
  const [current] = await db
    .select({ stage: adsPlanSelections.stage })
    .from(adsPlanSelections)
    .where(and(eq(adsPlanSelections.customerId, customerId), lte(adsPlanSelections.effectiveFrom, cycleStart)))
    .orderBy(desc(adsPlanSelections.effectiveFrom))
    .limit(1);
  const [scheduled] = await db
    .select({ stage: adsPlanSelections.stage, effectiveFrom: adsPlanSelections.effectiveFrom })
    .from(adsPlanSelections)
    .where(and(eq(adsPlanSelections.customerId, customerId), gt(adsPlanSelections.effectiveFrom, cycleStart)))
    .orderBy(asc(adsPlanSelections.effectiveFrom))
    .limit(1);
  return { selected: current?.stage ?? fallback, scheduled: scheduled ?? null };
}

/**
 * The one source of the selected stage, as SQL for a row of `customers`: the latest selection effective at
 * the running cycle's start, else the operator's default in `ads_settings.stage`. The plan's
 * `selected_stage` and the admin API's customer `ads.stage` both read it.
 */
export function selectedStageSql(customerId: SQL | AnyColumn, fallback: AnyColumn, now: Date): SQL<Stage> {
  const start = cycleOf(now).start;
  return sql<Stage>`coalesce((select ${adsPlanSelections.stage} from ${adsPlanSelections} where ${adsPlanSelections.customerId} = ${customerId} and ${adsPlanSelections.effectiveFrom} <= ${start}::date order by ${adsPlanSelections.effectiveFrom} desc limit 1), ${fallback})`;
}

/**
 * An operator sets the stage: it becomes the running cycle's selection from the cycle's start (as an
 * upgrade does, also when lower), and a scheduled change is dropped; `ads_settings.stage` keeps it as the
 * default of later cycles without a selection. Runs inside the caller's transaction.
 */
export async function setSelectedStage(tx: Tx, customerId: string, stage: Stage, now: Date): Promise<void> {
  const start = cycleOf(now).start;
  await tx.delete(adsPlanSelections).where(and(eq(adsPlanSelections.customerId, customerId), gte(adsPlanSelections.effectiveFrom, start)));
  await tx.insert(adsPlanSelections).values({ customerId, effectiveFrom: start, stage, createdAt: now });
}

/** Spend of the cycle from the daily snapshots (days of the ad account's time zone within the month), in cents. */
async function cycleSpendCents(db: Database | Tx, customerId: string, cycle: Pick<Cycle, "start" | "end">): Promise<number> {
  const [row] = await db
    .select({ spend: sql<string>`coalesce(sum(${adsInsightSnapshots.spendMinor}), 0)` })
    .from(adsInsightSnapshots)
    .where(
      and(
        eq(adsInsightSnapshots.customerId, customerId),
        eq(adsInsightSnapshots.dimension, ""),
        gte(adsInsightSnapshots.date, cycle.start),
        lte(adsInsightSnapshots.date, cycle.end),
      ),
    );
  return Number(row?.spend ?? 0);
}

export type PlanState = {
  settings: Settings;
  cycle: Cycle;
  selected: Stage;
  scheduled: { stage: Stage; effectiveFrom: string } | null;
  stage: Stage;
  spendCents: number;
  includedAds: number | null;
};

/** Everything the plan is decided from, read in one place; also what the ads quota counts against. */
export async function planState(db: Database | Tx, customerId: string, now: Date): Promise<PlanState> {
  const settings = await settingsOf(db, customerId);
  const cycle = cycleOf(now);
  const { selected, scheduled } = await selectionOf(db, customerId, cycle.start, settings.stage);
  const spendCents = await cycleSpendCents(db, customerId, cycle);
  const stage = higher(selected, stageForSpend(spendCents));
  const includedAds = stage === "enterprise" ? settings.enterpriseIncludedAds : STAGE_TERMS[stage].includedAds;
  return { settings, cycle, selected, scheduled, stage, spendCents, includedAds };
}

const terms = (stage: Stage, settings: Settings) => ({
  base_fee_cents: STAGE_TERMS[stage].baseFeeCents,
  media_fee_percent: STAGE_TERMS[stage].mediaFeeBasisPoints / 100,
  inclusions: {
    ads: stage === "enterprise" ? settings.enterpriseIncludedAds : STAGE_TERMS[stage].includedAds,
    spend_cents: STAGE_TERMS[stage].includedSpendCents,
  },
});

/**
 * The spend expected by the cycle's end: the spend so far spread over the elapsed days, for the whole month.
 * A deactivated account is expected to spend nothing more.
 */
function projectedSpendCents(state: PlanState): number {
  if (state.settings.accountState === "deactivated") return state.spendCents;
  return Math.round((state.spendCents * state.cycle.days) / Math.max(1, state.cycle.elapsedDays));
}

function expected(state: PlanState) {
  const projected = projectedSpendCents(state);
  const stage = higher(state.stage, stageForSpend(projected));
  return { projected, stage, fee: feeCents(stage, projected) };
}

/** The API's `Plan` schema (one schema per resource). */
export type PlanView = z.infer<typeof Plan>;

function planView(state: PlanState): PlanView {
  const next = expected(state);
  return {
    state: state.settings.accountState,
    stage: state.stage,
    selected_stage: state.selected,
    stage_reason: rank(state.stage) > rank(state.selected) ? ("spend" as const) : ("selection" as const),
    cycle: { start: state.cycle.start, end: state.cycle.end },
    currency: "EUR" as const,
    ...terms(state.stage, state.settings),
    expected_fee_cents: next.fee,
    scheduled_change: state.scheduled ? { stage: state.scheduled.stage, effective_from: state.scheduled.effectiveFrom } : null,
  };
}

export async function getPlan(deps: Pick<CoreDeps, "db" | "clock">, customerId: string): Promise<PlanView> {
  return planView(await planState(deps.db, customerId, deps.clock.now()));
}

export async function getPlanUsage(deps: Pick<CoreDeps, "db" | "clock">, customerId: string): Promise<z.infer<typeof PlanUsage>> {
  const now = deps.clock.now();
  const state = await planState(deps.db, customerId, now);
  const published = await adsPublishedThisMonth(deps.db, customerId, now);
  const next = expected(state);
  const includedSpend = STAGE_TERMS[state.stage].includedSpendCents;
  return {
    cycle: { start: state.cycle.start, end: state.cycle.end, days: state.cycle.days, elapsed_days: state.cycle.elapsedDays },
    state: state.settings.accountState,
    stage: state.stage,
    currency: "EUR" as const,
    ads: { published, included: state.includedAds, remaining: state.includedAds === null ? null : Math.max(0, state.includedAds - published) },
    spend: { spend_cents: state.spendCents, included_cents: includedSpend, projected_cents: next.projected },
    fee_to_date_cents: feeCents(state.stage, state.spendCents),
    expected_stage: next.stage,
    expected_fee_cents: next.fee,
  };
}

/** The API's `ChangeStage` request. */
type ChangeStageInput = z.infer<typeof ChangeStage>;

/**
 * Upgrade (a higher stage than the running cycle's, or the next one up when none is given): selected from
 * the running cycle's start, so its inclusions apply at once and a 402 `quota_exceeded` is lifted; later
 * selections are dropped. Downgrade (lower than the running cycle's selection): selected from the next
 * cycle's start. The same stage changes nothing. Enterprise is agreed with the operator.
 */
export async function changeStage(deps: Pick<CoreDeps, "db" | "clock">, customerId: string, input: ChangeStageInput): Promise<z.infer<typeof StageChange>> {
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`ads-plan:${customerId}`}, 0))`);
    const state = await planState(tx, customerId, now);
    let target: Stage;
    if (input.stage) target = input.stage;
    else {
      const next = STAGE_ORDER[rank(state.stage) + 1];
      if (!next || next === "enterprise") {
        throw new ConflictError(`The ${state.stage} stage is the highest self-service stage; Enterprise is agreed with the operator.`, { stage: state.stage });
      }
      target = next;
    }
    let change: "upgraded" | "downgrade_scheduled" | "unchanged";
    let effectiveFrom: string;
    if (rank(target) > rank(state.stage)) {
      change = "upgraded";
      effectiveFrom = state.cycle.start;
      await tx.delete(adsPlanSelections).where(and(eq(adsPlanSelections.customerId, customerId), gte(adsPlanSelections.effectiveFrom, state.cycle.start)));
    } else if (rank(target) < rank(state.selected)) {
      change = "downgrade_scheduled";
      effectiveFrom = state.cycle.nextStart;
      await tx.delete(adsPlanSelections).where(and(eq(adsPlanSelections.customerId, customerId), gt(adsPlanSelections.effectiveFrom, state.cycle.start)));
    } else if (target === state.selected && state.scheduled) {
      // Choosing the running selection again cancels a scheduled downgrade.
      change = "unchanged";
      effectiveFrom = state.cycle.start;
      await tx.delete(adsPlanSelections).where(and(eq(adsPlanSelections.customerId, customerId), gt(adsPlanSelections.effectiveFrom, state.cycle.start)));
      return { change, effective_from: effectiveFrom, plan: planView(await planState(tx, customerId, now)) };
    } else {
      return { change: "unchanged" as const, effective_from: state.cycle.start, plan: planView(state) };
    }
    await tx
      .insert(adsPlanSelections)
      .values({ customerId, effectiveFrom, stage: target, createdAt: now })
      .onConflictDoUpdate({ target: [adsPlanSelections.customerId, adsPlanSelections.effectiveFrom], set: { stage: target, createdAt: now } });
    return { change, effective_from: effectiveFrom, plan: planView(await planState(tx, customerId, now)) };
  });
}

/**
 * Deactivates the account (free of charge: no fee is added, and the running cycle keeps only what was
 * already spent). Writes then answer 402 `payment_required`, reads keep working; the operator reactivates
 * through the admin API. Conditional on the account being active, so a repeated call changes nothing.
 */
export async function deactivateAccount(deps: Pick<CoreDeps, "db" | "clock" | "principals">, customerId: string): Promise<z.infer<typeof Deactivation>> {
  const now = deps.clock.now();
  const [row] = await deps.db
    .update(adsSettings)
    .set({ accountState: "deactivated", updatedAt: now })
    .where(and(eq(adsSettings.customerId, customerId), eq(adsSettings.accountState, "active")))
    .returning({ state: adsSettings.accountState });
  if (!row) throw new ConflictError("Only an active account can be deactivated.", { reason: "account_not_active" });
  deps.principals.invalidateCustomer(customerId);
  return { state: "deactivated" as const, deactivated_at: now.toISOString(), fee_cents: 0 as const, plan: await getPlan(deps, customerId) };
}
