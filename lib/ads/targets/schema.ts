import { z } from "@hono/zod-openapi";
import { graphId } from "../fields";
import { DACH_COUNTRIES } from "../targeting/schema";

/**
 * The target resource as the operator reads and writes it (`/v1/customers/{id}/ads/targets` of the admin
 * API): owned by the ads service, whose target service returns `AdminTarget`.
 */

const locationKey = z.strictObject({
  key: z.string().min(1).max(64).openapi({ description: "Platform location key.", example: "2951825" }),
  radius: z.number().positive().max(80).optional().openapi({ description: "Radius around a city.", example: 25 }),
  distance_unit: z.enum(["mile", "kilometer"]).optional().openapi({ description: "Unit of `radius`.", example: "kilometer" }),
});

const AdminGeoLocations = z
  .strictObject({
    countries: z
      .array(z.string().regex(/^[A-Z]{2}$/, "ISO 3166-1 alpha-2"))
      .optional()
      .openapi({ description: "Country codes.", example: [...DACH_COUNTRIES] }),
    regions: z.array(locationKey).optional().openapi({ description: "Region keys." }),
    cities: z.array(locationKey).optional().openapi({ description: "City keys (GET /v1/targeting/geo), optionally with radius." }),
    zips: z.array(locationKey).optional().openapi({ description: "Postal code keys." }),
    country_groups: z.array(z.string().min(1)).optional().openapi({ description: "Country groups such as `europe`.", example: [] }),
    location_types: z
      .array(z.string().regex(/^(home|recent)$/, "home or recent"))
      .optional()
      .openapi({ description: "Whom a location matches.", example: ["home", "recent"] }),
  })
  .refine((geo) => [geo.countries, geo.regions, geo.cities, geo.zips, geo.country_groups].some((list) => list && list.length > 0), {
    message: "At least one location (country, region, city, zip or country group).",
  })
  .openapi("AdminGeoLocations", { description: "Where the ads run (Graph `geo_locations`)." });

const PromotedObject = z
  .strictObject({
    page_id: z.string().optional().openapi({ description: "Page id.", example: "100200300400500" }),
    pixel_id: z.string().optional().openapi({ description: "Pixel id.", example: "998877665544" }),
    custom_event_type: z.string().optional().openapi({ description: "Conversion event, e.g. `PURCHASE`.", example: "PURCHASE" }),
    application_id: z.string().optional().openapi({ description: "App id.", example: "1234" }),
    object_store_url: z.string().optional().openapi({ description: "App store URL.", example: "https://apps.apple.com/app/id1" }),
  })
  .openapi("AdminPromotedObject", { description: "Graph `promoted_object` for the optimization goal." });

const upper = (description: string, example: string) =>
  z
    .string()
    .regex(/^[A-Z][A-Z_]*$/, "Graph enum value in capitals.")
    .openapi({ description, example });
/** Feed, story and reels on each platform: the examples below and the demo target's placements. */
export const FACEBOOK_FEED_STORY_REELS = ["feed", "story", "facebook_reels"] as const;
export const INSTAGRAM_STREAM_STORY_REELS = ["stream", "story", "reels"] as const;

const positions = (description: string, example: string[]) =>
  z
    .array(z.string().regex(/^[a-z_]+$/))
    .min(1)
    .openapi({ description, example });

const configShape = {
  optimization_goal: upper("Graph `optimization_goal`.", "LINK_CLICKS"),
  billing_event: upper("Graph `billing_event`.", "IMPRESSIONS"),
  bid_strategy: z
    .enum(["LOWEST_COST_WITHOUT_CAP", "LOWEST_COST_WITH_BID_CAP", "COST_CAP", "LOWEST_COST_WITH_MIN_ROAS"])
    .openapi({ description: "Graph `bid_strategy`; null = the platform's default.", example: "LOWEST_COST_WITHOUT_CAP" }),
  promoted_object: PromotedObject,
  geo_locations: AdminGeoLocations,
  publisher_platforms: z
    .array(z.enum(["facebook", "instagram", "messenger", "audience_network"]))
    .min(1)
    .openapi({ description: "Platforms; null = automatic placements.", example: ["facebook", "instagram"] }),
  facebook_positions: positions("Facebook positions.", [...FACEBOOK_FEED_STORY_REELS]),
  instagram_positions: positions("Instagram positions.", [...INSTAGRAM_STREAM_STORY_REELS]),
  device_platforms: z
    .array(z.enum(["mobile", "desktop"]))
    .min(1)
    .openapi({ description: "Devices.", example: ["mobile", "desktop"] }),
  advantage_audience: z.union([z.literal(0), z.literal(1)]).openapi({
    description: "Advantage+ audience (Graph `targeting_automation.advantage_audience`): 0 keeps targeting as given, 1 lets the platform widen it.",
    example: 0,
  }),
};

const AdminTargetConfig = z
  .object({
    optimization_goal: configShape.optimization_goal,
    billing_event: configShape.billing_event,
    bid_strategy: z.string().nullable().openapi({ description: "Graph `bid_strategy`; null = the platform's default.", example: "LOWEST_COST_WITHOUT_CAP" }),
    promoted_object: PromotedObject.nullable(),
    geo_locations: AdminGeoLocations,
    publisher_platforms: z
      .array(z.string())
      .nullable()
      .openapi({ description: "Platforms; null = automatic placements.", example: ["facebook", "instagram"] }),
    facebook_positions: z
      .array(z.string())
      .nullable()
      .openapi({ description: "Facebook positions; null = all.", example: ["feed", "story"] }),
    instagram_positions: z
      .array(z.string())
      .nullable()
      .openapi({ description: "Instagram positions; null = all.", example: [...INSTAGRAM_STREAM_STORY_REELS] }),
    device_platforms: z
      .array(z.string())
      .nullable()
      .openapi({ description: "Devices; null = all.", example: ["mobile", "desktop"] }),
    advantage_audience: configShape.advantage_audience,
  })
  .openapi("AdminTargetConfig", { description: "Fills the fields customers cannot send (the locked fields)." });

const AdminTargetConfigInput = z
  .strictObject({
    optimization_goal: configShape.optimization_goal,
    billing_event: configShape.billing_event,
    bid_strategy: configShape.bid_strategy.optional(),
    promoted_object: PromotedObject.optional(),
    geo_locations: AdminGeoLocations,
    publisher_platforms: configShape.publisher_platforms.optional(),
    facebook_positions: configShape.facebook_positions.optional(),
    instagram_positions: configShape.instagram_positions.optional(),
    device_platforms: configShape.device_platforms.optional(),
    advantage_audience: configShape.advantage_audience.optional(),
  })
  .openapi("AdminTargetConfigInput", { description: "Target configuration; unset optional fields are left to the platform's defaults." });

const AdminTargetConfigPatch = z
  .strictObject({
    optimization_goal: configShape.optimization_goal.optional(),
    billing_event: configShape.billing_event.optional(),
    bid_strategy: configShape.bid_strategy.nullable().optional(),
    promoted_object: PromotedObject.nullable().optional(),
    geo_locations: AdminGeoLocations.optional(),
    publisher_platforms: configShape.publisher_platforms.nullable().optional(),
    facebook_positions: configShape.facebook_positions.nullable().optional(),
    instagram_positions: configShape.instagram_positions.nullable().optional(),
    device_platforms: configShape.device_platforms.nullable().optional(),
    advantage_audience: configShape.advantage_audience.optional(),
  })
  .openapi("AdminTargetConfigPatch", { description: "Fields to replace; null clears an optional one. Applies to ad sets created from now on." });

const targetKey = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, "1–64 of a-z, 0-9, _ and -, starting with a letter or digit.")
  .openapi({ description: "Key customers use as `target`.", example: "demo" });
const targetStatus = z.enum(["ACTIVE", "PAUSED"]).openapi({
  description:
    "Mirrored to the campaign on the platform. PAUSED pauses the campaign and refuses creating and changing ad sets and ads under the target (409 for customers).",
  example: "ACTIVE",
});
const campaignId = graphId(
  "The platform campaign the target's ad sets are created in; read from the platform and checked to belong to the customer's ad account.",
  "120200000000000001",
);

export const AdminTarget = z
  .object({
    id: z.uuid().openapi({ description: "Target id.", example: "2a1b0c9d-8e7f-4a6b-9c5d-4e3f2a1b0c9d" }),
    key: targetKey,
    platform_campaign_id: campaignId,
    status: targetStatus,
    config: AdminTargetConfig,
    created_at: z.string().openapi({ description: "Creation time (ISO 8601).", example: "2026-01-15T10:00:00.000Z" }),
    updated_at: z.string().openapi({ description: "Last change (ISO 8601).", example: "2026-01-15T10:00:00.000Z" }),
  })
  .openapi("AdminTarget");

export const CreateAdminTarget = z
  .strictObject({ key: targetKey, platform_campaign_id: campaignId, status: targetStatus.optional(), config: AdminTargetConfigInput })
  .openapi("CreateAdminTarget");

export const UpdateAdminTarget = z
  .strictObject({ platform_campaign_id: campaignId.optional(), status: targetStatus.optional(), config: AdminTargetConfigPatch.optional() })
  .openapi("UpdateAdminTarget");
