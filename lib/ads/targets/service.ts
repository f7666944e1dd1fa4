import { and, asc, eq } from "drizzle-orm";
import type { Database, Tx } from "../../db/client";
import { adsTargets, type TargetConfigRecord } from "../../db/schema";
import { ConflictError, NotFoundError } from "../../core/errors";

export type TargetRow = typeof adsTargets.$inferSelect;
export type TargetStatus = TargetRow["status"];

export type TargetView = {
  id: string;
  key: string;
  platform_campaign_id: string;
  status: TargetStatus;
  config: TargetConfigRecord;
  created_at: string;
  updated_at: string;
};

export type TargetConfigInput = Omit<TargetConfigRecord, "bid_strategy" | "promoted_object" | "publisher_platforms" | "facebook_positions" | "instagram_positions" | "device_platforms" | "advantage_audience"> &
  Partial<Pick<TargetConfigRecord, "bid_strategy" | "promoted_object" | "publisher_platforms" | "facebook_positions" | "instagram_positions" | "device_platforms" | "advantage_audience">>;

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

export async function createTarget(
  db: Database,
  customerId: string,
  input: { key: string; platform_campaign_id: string; status?: TargetStatus; config: TargetConfigInput },
): Promise<TargetView> {
  const [row] = await db
    .insert(adsTargets)
    .values({ customerId, key: input.key, platformCampaignId: input.platform_campaign_id, status: input.status ?? "ACTIVE", config: completeConfig(input.config) })
    .onConflictDoNothing({ target: [adsTargets.customerId, adsTargets.key] })
    .returning();
  if (!row) throw new ConflictError(`Target "${input.key}" already exists for this customer; change it with PATCH.`, { reason: "target_key_taken" });
  return toTargetView(row);
}

export async function listTargets(db: Database, customerId: string): Promise<TargetView[]> {
  const rows = await db.select().from(adsTargets).where(eq(adsTargets.customerId, customerId)).orderBy(asc(adsTargets.key));
  return rows.map(toTargetView);
}

export async function findTargetByKey(db: Database | Tx, customerId: string, key: string): Promise<TargetRow | undefined> {
  const [row] = await db.select().from(adsTargets).where(and(eq(adsTargets.customerId, customerId), eq(adsTargets.key, key)));
  return row;
}

export async function findTargetById(db: Database | Tx, customerId: string, id: string): Promise<TargetRow | undefined> {
  const [row] = await db.select().from(adsTargets).where(and(eq(adsTargets.customerId, customerId), eq(adsTargets.id, id)));
  return row;
}

/** Partial update; `config` fields given replace the stored ones, the others stay. */
export async function updateTarget(
  db: Database,
  customerId: string,
  key: string,
  input: { platform_campaign_id?: string; status?: TargetStatus; config?: Partial<TargetConfigRecord> },
  now: Date,
): Promise<TargetView> {
  const updated = await db.transaction(async (tx) => {
    const current = await findTargetByKey(tx, customerId, key);
    if (!current) return undefined;
    const [row] = await tx
      .update(adsTargets)
      .set({
        ...(input.platform_campaign_id !== undefined && { platformCampaignId: input.platform_campaign_id }),
        ...(input.status !== undefined && { status: input.status }),
        ...(input.config !== undefined && { config: { ...current.config, ...input.config } }),
        updatedAt: now,
      })
      .where(and(eq(adsTargets.customerId, customerId), eq(adsTargets.id, current.id)))
      .returning();
    return row;
  });
  if (!updated) throw new NotFoundError("Target");
  return toTargetView(updated);
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
