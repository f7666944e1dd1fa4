import { z } from "@hono/zod-openapi";
import { configuredStatuses } from "../../db/schema/index";

/** Locked on create: the target configuration sets them (spec list, plus the other fields it fills). */
export const AD_SET_LOCKED_FIELDS = [
  "name",
  "status",
  "optimization_goal",
  "billing_event",
  "bid_strategy",
  "promoted_object",
  "campaign_id",
  "dsa_beneficiary",
  "dsa_payor",
  "targeting.geo_locations",
  "targeting.publisher_platforms",
  "targeting.facebook_positions",
  "targeting.instagram_positions",
  "targeting.device_platforms",
  "targeting.targeting_automation",
] as const;

/** On PATCH `status` is a field of its own; the rest stays locked. */
export const AD_SET_UPDATE_LOCKED_FIELDS = AD_SET_LOCKED_FIELDS.filter((field) => field !== "status");

const budget = (description: string) => z.number().int().positive().max(10_000_000_000).openapi({ description, example: 2500 });
const time = (description: string, example: string | null) => z.iso.datetime({ offset: true }).openapi({ description, example });

const TargetingEntity = z
  .strictObject({
    id: z
      .string()
      .regex(/^\d+$/, "Must be a numeric id from the interest lookup.")
      .openapi({ description: "Id from GET /v1/targeting/interests.", example: "6003139266461" }),
    name: z.string().min(1).max(200).openapi({ description: "Display name.", example: "Running" }),
  })
  .openapi("TargetingEntity");

const entities = (description: string) => z.array(TargetingEntity).min(1).max(200).optional().openapi({ description });

const FlexibleSpecGroup = z
  .strictObject({
    interests: entities("Interests; any of them matches."),
    behaviors: entities("Behaviors; any of them matches."),
    life_events: entities("Life events; any of them matches."),
  })
  .refine((group) => group.interests || group.behaviors || group.life_events, { message: "A group needs interests, behaviors or life_events." })
  .openapi("FlexibleSpecGroup", { description: "One OR group: a person matches when any entry of the group matches." });

const AdSetTargeting = z
  .strictObject({
    age_min: z.number().int().min(13).max(65).optional().openapi({ description: "Minimum age, 13–65.", example: 25 }),
    age_max: z.number().int().min(13).max(65).optional().openapi({ description: "Maximum age, 13–65 (65 means 65+).", example: 54 }),
    genders: z
      .array(z.union([z.literal(1), z.literal(2)]))
      .min(1)
      .max(2)
      .refine((list) => new Set(list).size === list.length, { message: "Each gender at most once." })
      .optional()
      .openapi({ description: "1 = male, 2 = female; omitted = all.", example: [2] }),
    flexible_spec: z.array(FlexibleSpecGroup).min(1).max(20).optional().openapi({ description: "OR groups, combined with AND." }),
  })
  .openapi("AdSetTargeting", { description: "The customer's part of the targeting; location, placements and devices come from the target." });

export const AdSet = z
  .object({
    id: z.uuid().openapi({ description: "Ad set id (UUID).", example: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d" }),
    target: z.string().openapi({ description: "Key of the target (campaign) it belongs to.", example: "demo" }),
    name: z.string().openapi({ description: "Name from the naming convention.", example: "demo-20260115-001" }),
    daily_budget_cents: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "Daily budget in cents of the account currency; null with a lifetime budget.", example: 2500 }),
    lifetime_budget_cents: z.number().int().nullable().openapi({ description: "Lifetime budget in cents; null with a daily budget.", example: null }),
    start_time: z.string().nullable().openapi({ description: "Start (ISO 8601); null = started immediately.", example: null }),
    end_time: z.string().nullable().openapi({ description: "End (ISO 8601); null = open-ended.", example: null }),
    targeting: AdSetTargeting,
    status: z.enum(configuredStatuses).openapi({ description: "Configured status.", example: "ACTIVE" }),
    effective_status: z
      .string()
      .openapi({ description: "Delivery status: `ACTIVE`, `PAUSED`, `ARCHIVED`, or `CAMPAIGN_PAUSED` while the target is paused.", example: "ACTIVE" }),
    platform_adset_id: z.string().openapi({ description: "The platform's ad set id.", example: "120210000000000456" }),
    created_at: z.string().openapi({ description: "Creation time (ISO 8601).", example: "2026-01-15T10:00:00.000Z" }),
    updated_at: z.string().openapi({ description: "Last change (ISO 8601).", example: "2026-01-15T10:00:00.000Z" }),
  })
  .openapi("AdSet");

export const CreateAdSet = z
  .strictObject({
    target: z.string().min(1).max(64).openapi({ description: "Target key supplied by the operator.", example: "demo" }),
    daily_budget_cents: budget("Daily budget in cents of the account currency; exactly one of the two budgets.").optional(),
    lifetime_budget_cents: budget("Lifetime budget in cents; exactly one of the two budgets; requires `end_time`.").optional(),
    start_time: time("Start (ISO 8601 with offset); default: immediately.", "2026-02-01T00:00:00+01:00").optional(),
    end_time: time("End (ISO 8601 with offset); required with a lifetime budget.", "2026-02-28T23:59:59+01:00").optional(),
    targeting: AdSetTargeting.optional(),
  })
  .openapi("CreateAdSet");

export const UpdateAdSet = z
  .strictObject({
    daily_budget_cents: budget("New daily budget (only for an ad set created with a daily budget).").optional(),
    lifetime_budget_cents: budget("New lifetime budget (only for an ad set created with a lifetime budget).").optional(),
    start_time: time("New start (ISO 8601 with offset).", "2026-02-01T00:00:00+01:00").optional(),
    end_time: time("New end (ISO 8601 with offset).", "2026-03-31T23:59:59+02:00").optional(),
    status: z.enum(["ACTIVE", "PAUSED"]).optional().openapi({ description: "Activate or pause.", example: "PAUSED" }),
  })
  .openapi("UpdateAdSet");
