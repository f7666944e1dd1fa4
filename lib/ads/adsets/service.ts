import { and, desc, eq, ne } from "drizzle-orm";
import type { Database, Tx } from "../../db/client";
import { adsAdSets, adsAds, adsTargets, type CustomerTargetingRecord } from "../../db/schema";
import { NotFoundError, ValidationError, type FieldProblem } from "../../core/errors";
import { archivedConflict } from "../conflicts";
import type { AdsDeps } from "../deps";
import { getNaming, nextName } from "../naming";
import { connectAccount, connectCredentials } from "../onboarding/service";
import type { AdSetCreateParams, AdSetUpdateParams, Targeting } from "../platform";
import { assertTargetActive, findTargetByKey, type TargetRow } from "../targets/service";
import { closeCompensations, compensateOnFailure, openCompensation } from "../compensations";
import { upstream } from "../upstream";
import type { z } from "zod";
import type { AdSet, CreateAdSet, UpdateAdSet } from "./schema";

export type AdSetStatus = (typeof adsAdSets.$inferSelect)["status"];
type Row = typeof adsAdSets.$inferSelect;

/** The API's `AdSet` schema (one schema per resource). */
export type AdSetView = z.infer<typeof AdSet>;

export type CreateAdSetInput = z.infer<typeof CreateAdSet>;

export type UpdateAdSetInput = z.infer<typeof UpdateAdSet>;

/**
 * What the platform would report for delivery, derived from the ad set's own status and its target's: a
 * paused target shows as `CAMPAIGN_PAUSED`, as Graph names it.
 */
function adSetEffectiveStatus(status: AdSetStatus, targetStatus: TargetRow["status"]): string {
  if (status !== "ACTIVE") return status;
  return targetStatus === "ACTIVE" ? "ACTIVE" : "CAMPAIGN_PAUSED";
}

export function toAdSetView(row: Row, target: Pick<TargetRow, "key" | "status">): AdSetView {
  return {
    id: row.id,
    target: target.key,
    name: row.name,
    daily_budget_cents: row.dailyBudgetCents,
    lifetime_budget_cents: row.lifetimeBudgetCents,
    start_time: row.startTime?.toISOString() ?? null,
    end_time: row.endTime?.toISOString() ?? null,
    targeting: row.targeting,
    status: row.status,
    effective_status: adSetEffectiveStatus(row.status, target.status),
    platform_adset_id: row.platformAdSetId,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

function checkSchedule(problems: FieldProblem[], start: Date | null, end: Date | null, now: Date): void {
  if (end && end.getTime() <= (start ?? now).getTime())
    problems.push({ path: "end_time", message: "Must be after start_time (or after now when start_time is not set)." });
  if (end && end.getTime() <= now.getTime()) problems.push({ path: "end_time", message: "Must be in the future." });
}

/** The rules of the spec that need more than one field. */
function checkCreate(input: CreateAdSetInput, now: Date): void {
  const problems: FieldProblem[] = [];
  const daily = input.daily_budget_cents !== undefined;
  const lifetime = input.lifetime_budget_cents !== undefined;
  if (daily === lifetime) {
    const message = daily
      ? "Give exactly one budget: daily_budget_cents or lifetime_budget_cents, not both."
      : "Give exactly one budget: daily_budget_cents or lifetime_budget_cents.";
    problems.push({ path: "daily_budget_cents", message }, { path: "lifetime_budget_cents", message });
  }
  if (lifetime && !input.end_time) problems.push({ path: "end_time", message: "Required with lifetime_budget_cents." });
  checkSchedule(problems, input.start_time ? new Date(input.start_time) : null, input.end_time ? new Date(input.end_time) : null, now);
  const targeting = input.targeting ?? {};
  if (targeting.age_min !== undefined && targeting.age_max !== undefined && targeting.age_min > targeting.age_max) {
    problems.push({ path: "targeting.age_min", message: "Must not be above targeting.age_max." });
  }
  if (problems.length > 0) throw new ValidationError("The ad set has invalid fields; see details.", problems);
}

/** The locked fields come from the target; the customer's part is merged in, never the other way round. */
function platformTargeting(target: TargetRow, customer: CustomerTargetingRecord): Targeting {
  const config = target.config;
  return {
    geo_locations: config.geo_locations,
    ...(customer.age_min !== undefined && { age_min: customer.age_min }),
    ...(customer.age_max !== undefined && { age_max: customer.age_max }),
    ...(customer.genders !== undefined && { genders: customer.genders }),
    ...(customer.flexible_spec !== undefined && { flexible_spec: customer.flexible_spec }),
    ...(config.publisher_platforms && { publisher_platforms: config.publisher_platforms }),
    ...(config.facebook_positions && { facebook_positions: config.facebook_positions }),
    ...(config.instagram_positions && { instagram_positions: config.instagram_positions }),
    ...(config.device_platforms && { device_platforms: config.device_platforms }),
    targeting_automation: { advantage_audience: config.advantage_audience },
  };
}

export async function createAdSet(deps: AdsDeps, customerId: string, input: CreateAdSetInput): Promise<AdSetView> {
  const now = deps.clock.now();
  checkCreate(input, now);
  const account = await connectAccount(deps, customerId);
  const target = await findTargetByKey(deps.db, customerId, input.target);
  if (!target)
    throw new ValidationError("Unknown target.", [
      { path: "target", message: `No target "${input.target}" is set up for this account; ask the operator for the target key.` },
    ]);
  assertTargetActive(target);

  const naming = await getNaming(deps.db, customerId);
  const name = await nextName(deps.db, customerId, naming.adset_pattern, { target: target.key, now });
  const targeting = input.targeting ?? {};
  const config = target.config;
  const params: AdSetCreateParams = {
    name,
    campaign_id: target.platformCampaignId,
    status: "ACTIVE",
    billing_event: config.billing_event,
    optimization_goal: config.optimization_goal,
    ...(config.bid_strategy && { bid_strategy: config.bid_strategy }),
    ...(config.promoted_object && { promoted_object: config.promoted_object }),
    targeting: platformTargeting(target, targeting),
    ...(input.daily_budget_cents !== undefined && { daily_budget: input.daily_budget_cents }),
    ...(input.lifetime_budget_cents !== undefined && { lifetime_budget: input.lifetime_budget_cents }),
    ...(input.start_time && { start_time: new Date(input.start_time).toISOString() }),
    ...(input.end_time && { end_time: new Date(input.end_time).toISOString() }),
    dsa_beneficiary: account.dsaBeneficiary,
    dsa_payor: account.dsaPayor,
  };
  const created = await upstream({ logger: deps.logger, customerId, action: "create ad set" }, () => account.session.createAdSet(account.adAccountId, params));
  const pending = await openCompensation(deps, account.session, { customerId, kind: "adset", platformId: created.id });
  const row = await compensateOnFailure(deps, account.session, [pending], () =>
    deps.db.transaction(async (tx) => {
      const [inserted] = await tx
        .insert(adsAdSets)
        .values({
          customerId,
          targetId: target.id,
          name,
          dailyBudgetCents: input.daily_budget_cents ?? null,
          lifetimeBudgetCents: input.lifetime_budget_cents ?? null,
          startTime: input.start_time ? new Date(input.start_time) : null,
          endTime: input.end_time ? new Date(input.end_time) : null,
          targeting,
          status: "ACTIVE",
          platformAdSetId: created.id,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      if (!inserted) throw new Error("ad set insert returned nothing");
      await closeCompensations(tx, [pending]);
      return inserted;
    }),
  );
  return toAdSetView(row, target);
}

export async function findAdSet(db: Database | Tx, customerId: string, id: string): Promise<{ adSet: Row; target: TargetRow } | undefined> {
  const [found] = await db
    .select({ adSet: adsAdSets, target: adsTargets })
    .from(adsAdSets)
    .innerJoin(adsTargets, eq(adsTargets.id, adsAdSets.targetId))
    .where(and(eq(adsAdSets.customerId, customerId), eq(adsAdSets.id, id)));
  return found;
}

export async function listAdSets(
  db: Database,
  customerId: string,
  query: { target?: string; status?: AdSetStatus; limit: number; offset: number },
): Promise<AdSetView[]> {
  const rows = await db
    .select({ adSet: adsAdSets, target: adsTargets })
    .from(adsAdSets)
    .innerJoin(adsTargets, eq(adsTargets.id, adsAdSets.targetId))
    .where(
      and(
        eq(adsAdSets.customerId, customerId),
        query.target !== undefined ? eq(adsTargets.key, query.target) : undefined,
        query.status !== undefined ? eq(adsAdSets.status, query.status) : undefined,
      ),
    )
    .orderBy(desc(adsAdSets.createdAt), desc(adsAdSets.id))
    .limit(query.limit)
    .offset(query.offset);
  return rows.map((row) => toAdSetView(row.adSet, row.target));
}

/**
 * Partial update. Every change, pausing too, needs an active target (409). The budget type chosen at
 * creation stays: the platform refuses switching between daily and lifetime.
 */
export async function updateAdSet(deps: AdsDeps, customerId: string, id: string, input: UpdateAdSetInput): Promise<AdSetView> {
  const found = await findAdSet(deps.db, customerId, id);
  if (!found) throw new NotFoundError("Ad set");
  const { adSet, target } = found;
  if (Object.keys(input).length === 0) return toAdSetView(adSet, target);
  if (adSet.status === "ARCHIVED") throw archivedConflict("ad set");
  assertTargetActive(target);

  const now = deps.clock.now();
  const problems: FieldProblem[] = [];
  if (input.daily_budget_cents !== undefined && input.lifetime_budget_cents !== undefined) {
    problems.push({ path: "lifetime_budget_cents", message: "Give at most one budget." });
  } else if (input.daily_budget_cents !== undefined && adSet.lifetimeBudgetCents !== null) {
    problems.push({ path: "daily_budget_cents", message: "This ad set has a lifetime budget; the budget type cannot change." });
  } else if (input.lifetime_budget_cents !== undefined && adSet.dailyBudgetCents !== null) {
    problems.push({ path: "lifetime_budget_cents", message: "This ad set has a daily budget; the budget type cannot change." });
  }
  const start = input.start_time !== undefined ? new Date(input.start_time) : adSet.startTime;
  const end = input.end_time !== undefined ? new Date(input.end_time) : adSet.endTime;
  if (input.start_time !== undefined || input.end_time !== undefined) checkSchedule(problems, start, end, now);
  if (problems.length > 0) throw new ValidationError("The change has invalid fields; see details.", problems);

  const params: AdSetUpdateParams = {
    ...(input.daily_budget_cents !== undefined && { daily_budget: input.daily_budget_cents }),
    ...(input.lifetime_budget_cents !== undefined && { lifetime_budget: input.lifetime_budget_cents }),
    ...(input.start_time !== undefined && { start_time: new Date(input.start_time).toISOString() }),
    ...(input.end_time !== undefined && { end_time: new Date(input.end_time).toISOString() }),
    ...(input.status !== undefined && { status: input.status }),
  };
  const session = await connectCredentials(deps, customerId);
  await upstream(
    { logger: deps.logger, customerId, action: "update ad set", references: [{ object: "ad set", id: adSet.id, platformId: adSet.platformAdSetId }] },
    () => session.updateAdSet(adSet.platformAdSetId, params),
  );
  const [row] = await deps.db
    .update(adsAdSets)
    .set({
      ...(input.daily_budget_cents !== undefined && { dailyBudgetCents: input.daily_budget_cents }),
      ...(input.lifetime_budget_cents !== undefined && { lifetimeBudgetCents: input.lifetime_budget_cents }),
      ...(input.start_time !== undefined && { startTime: start }),
      ...(input.end_time !== undefined && { endTime: end }),
      ...(input.status !== undefined && { status: input.status }),
      updatedAt: now,
    })
    .where(and(eq(adsAdSets.customerId, customerId), eq(adsAdSets.id, id), ne(adsAdSets.status, "ARCHIVED")))
    .returning();
  if (!row) throw archivedConflict("ad set");
  return toAdSetView(row, target);
}

/**
 * Archives upstream first, then here, together with the ad set's ads (the platform archives them with
 * it). Archiving an archived ad set answers the same record again without a platform call.
 */
export async function archiveAdSet(deps: AdsDeps, customerId: string, id: string): Promise<AdSetView> {
  const found = await findAdSet(deps.db, customerId, id);
  if (!found) throw new NotFoundError("Ad set");
  const { adSet, target } = found;
  if (adSet.status === "ARCHIVED") return toAdSetView(adSet, target);
  const session = await connectCredentials(deps, customerId);
  await upstream(
    { logger: deps.logger, customerId, action: "archive ad set", references: [{ object: "ad set", id: adSet.id, platformId: adSet.platformAdSetId }] },
    () => session.archive(adSet.platformAdSetId),
  );
  const now = deps.clock.now();
  const row = await deps.db.transaction(async (tx) => {
    const [updated] = await tx
      .update(adsAdSets)
      .set({ status: "ARCHIVED", updatedAt: now })
      .where(and(eq(adsAdSets.customerId, customerId), eq(adsAdSets.id, id)))
      .returning();
    await tx
      .update(adsAds)
      .set({ status: "ARCHIVED", effectiveStatus: "ARCHIVED", updatedAt: now })
      .where(and(eq(adsAds.customerId, customerId), eq(adsAds.adSetId, id)));
    return updated;
  });
  if (!row) throw new NotFoundError("Ad set");
  return toAdSetView(row, target);
}
