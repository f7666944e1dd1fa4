import { and, asc, eq, sql } from "drizzle-orm";
import type { Database, Tx } from "../../db/client";
import { adsTargets, type TargetConfigRecord } from "../../db/schema";
import { ConflictError, NotFoundError, ValidationError } from "../../core/errors";
import type { AdsDeps } from "../deps";
import { connectAdAccount } from "../onboarding/service";
import { PlatformError, type CampaignField } from "../platform";
import { toApiError, upstream } from "../upstream";
import type { z } from "zod";
import type { AdminTarget } from "./schema";

export type TargetRow = typeof adsTargets.$inferSelect;
export type TargetStatus = TargetRow["status"];

/** The API's `AdminTarget` schema (one schema per resource). */
export type TargetView = z.infer<typeof AdminTarget>;

export type TargetConfigInput = Omit<
  TargetConfigRecord,
  "bid_strategy" | "promoted_object" | "publisher_platforms" | "facebook_positions" | "instagram_positions" | "device_platforms" | "advantage_audience"
> &
  Partial<
    Pick<
      TargetConfigRecord,
      "bid_strategy" | "promoted_object" | "publisher_platforms" | "facebook_positions" | "instagram_positions" | "device_platforms" | "advantage_audience"
    >
  >;

export function toTargetView(row: TargetRow): TargetView {
  return {
    id: row.id,
    key: row.key,
    platform_campaign_id: row.platformCampaignId,
    status: row.status,
    config: row.config,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

function completeConfig(input: TargetConfigInput): TargetConfigRecord {
  return {
    optimization_goal: input.optimization_goal,
    billing_event: input.billing_event,
    bid_strategy: input.bid_strategy ?? null,
    promoted_object: input.promoted_object ?? null,
    geo_locations: input.geo_locations,
    publisher_platforms: input.publisher_platforms ?? null,
    facebook_positions: input.facebook_positions ?? null,
    instagram_positions: input.instagram_positions ?? null,
    device_platforms: input.device_platforms ?? null,
    advantage_audience: input.advantage_audience ?? 0,
  };
}

function keyTaken(key: string): ConflictError {
  return new ConflictError(`Target "${key}" already exists for this customer; change it with PATCH.`, { reason: "target_key_taken" });
}

function campaignProblem(message: string): ValidationError {
  return new ValidationError("The campaign cannot back this target; see details.", [{ path: "platform_campaign_id", message }]);
}

const CHECKED_CAMPAIGN_FIELDS: readonly CampaignField[] = ["name", "account_id", "configured_status", "daily_budget", "lifetime_budget"];

/** Graph sends budgets as numeric strings; a campaign whose ad sets hold the budgets has none (or "0"). */
function holdsBudget(value: string | undefined): boolean {
  return value !== undefined && Number(value) > 0;
}

async function readCampaign(deps: AdsDeps, customerId: string, campaignId: string) {
  let account: Awaited<ReturnType<typeof connectAdAccount>>;
  try {
    account = await connectAdAccount(deps, customerId);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    throw new ValidationError(
      "The campaign is verified with the customer's token on its ad account; complete the onboarding first (PATCH /admin/v1/customers/{id}/ads/account).",
      error.details,
    );
  }
  try {
    return { ...account, campaign: await account.session.getCampaign(campaignId, CHECKED_CAMPAIGN_FIELDS) };
  } catch (error) {
    if (!(error instanceof PlatformError)) throw error;
    const graphCode = `Graph code ${error.code ?? "?"}${error.subcode ? `/${error.subcode}` : ""}`;
    // 100/33 and other refusals to read: the id is wrong or the campaign is not the customer's to use.
    if (error.kind === "permission" || error.kind === "validation") {
      throw campaignProblem(`No campaign with this id is reachable with the customer's token (${graphCode}).`);
    }
    if (error.kind === "auth" && error.code === 190) {
      throw new ValidationError(
        `The platform refused the customer's access token (${graphCode}); set a new one with PATCH /admin/v1/customers/{id}/ads/account.`,
        {
          missing: ["access_token"],
        },
      );
    }
    throw toApiError(error, { logger: deps.logger, customerId, action: "verify target campaign" });
  }
}

/**
 * Verifies the campaign a target points at and mirrors the target's status to it. The campaign must exist,
 * belong to the customer's ad account, not be archived or deleted, and leave budgets to its ad sets
 * (customers give every ad set its own budget, which the platform refuses under a campaign budget). When
 * its configured status differs from the target's, it is set upstream: a PAUSED target pauses the
 * campaign, so nothing under it delivers, and ACTIVE resumes it. Nothing is stored by the caller unless
 * this succeeds.
 */
async function syncCampaign(deps: AdsDeps, customerId: string, campaignId: string, status: TargetStatus): Promise<void> {
  const { session, adAccountId, campaign } = await readCampaign(deps, customerId, campaignId);
  if (campaign.account_id !== adAccountId) {
    throw campaignProblem(`The campaign belongs to another ad account (act_${campaign.account_id ?? "?"}), not the customer's act_${adAccountId}.`);
  }
  const configured = campaign.configured_status ?? campaign.status;
  if (configured === "ARCHIVED" || configured === "DELETED") {
    throw campaignProblem(`The campaign is ${configured.toLowerCase()} on the platform; use a live campaign.`);
  }
  if (holdsBudget(campaign.daily_budget) || holdsBudget(campaign.lifetime_budget)) {
    throw campaignProblem(
      "The campaign holds the budget (campaign budget optimisation); customers give each ad set its own budget, which the platform refuses under such a campaign.",
    );
  }
  if (configured !== status) {
    await upstream({ logger: deps.logger, customerId, action: "mirror target status to campaign" }, () => session.updateCampaign(campaignId, { status }));
  }
}

/** The campaign is verified and set to the target's status first (see `syncCampaign`); a refusal stores nothing. */
export async function createTarget(
  deps: AdsDeps,
  customerId: string,
  input: { key: string; platform_campaign_id: string; status?: TargetStatus; config: TargetConfigInput },
): Promise<TargetView> {
  if (await findTargetByKey(deps.db, customerId, input.key)) throw keyTaken(input.key);
  const status = input.status ?? "ACTIVE";
  await syncCampaign(deps, customerId, input.platform_campaign_id, status);
  const [row] = await deps.db
    .insert(adsTargets)
    .values({ customerId, key: input.key, platformCampaignId: input.platform_campaign_id, status, config: completeConfig(input.config) })
    .onConflictDoNothing({ target: [adsTargets.customerId, adsTargets.key] })
    .returning();
  if (!row) throw keyTaken(input.key);
  return toTargetView(row);
}

export async function listTargets(db: Database, customerId: string): Promise<TargetView[]> {
  const rows = await db.select().from(adsTargets).where(eq(adsTargets.customerId, customerId)).orderBy(asc(adsTargets.key));
  return rows.map(toTargetView);
}

export async function findTargetByKey(db: Database | Tx, customerId: string, key: string): Promise<TargetRow | undefined> {
  const [row] = await db
    .select()
    .from(adsTargets)
    .where(and(eq(adsTargets.customerId, customerId), eq(adsTargets.key, key)));
  return row;
}

/**
 * Partial update; `config` fields given replace the stored ones, the others stay (merged in SQL, so
 * concurrent configuration changes do not overwrite each other). A new campaign or a status is verified
 * and mirrored upstream first (`syncCampaign`), also when the status is unchanged, which re-aligns a
 * campaign someone changed on the platform directly.
 */
export async function updateTarget(
  deps: AdsDeps,
  customerId: string,
  key: string,
  input: { platform_campaign_id?: string; status?: TargetStatus; config?: Partial<TargetConfigRecord> },
): Promise<TargetView> {
  const current = await findTargetByKey(deps.db, customerId, key);
  if (!current) throw new NotFoundError("Target");
  if (input.platform_campaign_id !== undefined || input.status !== undefined) {
    await syncCampaign(deps, customerId, input.platform_campaign_id ?? current.platformCampaignId, input.status ?? current.status);
  }
  const [row] = await deps.db
    .update(adsTargets)
    .set({
      ...(input.platform_campaign_id !== undefined && { platformCampaignId: input.platform_campaign_id }),
      ...(input.status !== undefined && { status: input.status }),
      ...(input.config !== undefined && { config: sql`${adsTargets.config} || ${JSON.stringify(input.config)}::jsonb` }),
      updatedAt: deps.clock.now(),
    })
    .where(and(eq(adsTargets.customerId, customerId), eq(adsTargets.id, current.id)))
    .returning();
  if (!row) throw new NotFoundError("Target");
  return toTargetView(row);
}

/** The 409 of the spec: changes under a target the operator paused are refused. */
export function assertTargetActive(target: Pick<TargetRow, "key" | "status">): void {
  if (target.status !== "ACTIVE") {
    throw new ConflictError(`Target "${target.key}" is ${target.status.toLowerCase()}; ad sets and ads under it cannot be created or changed.`, {
      reason: "target_inactive",
      target: target.key,
    });
  }
}
