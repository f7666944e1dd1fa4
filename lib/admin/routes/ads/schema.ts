import { z } from "@hono/zod-openapi";
import { AD_NAME_TOKENS, AD_SET_NAME_TOKENS, patternProblems } from "../../../ads/naming";
import { ONBOARDING_ITEMS, TOKEN_STATUSES } from "../../../ads/onboarding/service";

const graphId = (description: string, example: string) =>
  z
    .string()
    .regex(/^\d{1,30}$/, "Must be a numeric platform id.")
    .openapi({ description, example });
const text = (description: string, example: string) => z.string().trim().min(1).max(200).openapi({ description, example });

export const AdsOnboarding = z
  .object({
    access_token_set: z.boolean().openapi({ description: "Whether an access token is stored (it is never returned).", example: true }),
    app_secret_set: z.boolean().openapi({ description: "Whether an app secret is stored (it is never returned).", example: true }),
    token_verified_at: z
      .string()
      .nullable()
      .openapi({ description: "When the platform last accepted token and app secret (ISO 8601); null = not verified.", example: "2026-01-15T10:00:00.000Z" }),
    token_status: z.enum(TOKEN_STATUSES).openapi({
      description:
        "`missing` (no token), `unverified` (stored, the app secret is still missing), `verified` (accepted by the platform), `invalid` (accepted once, then refused by a later call with Graph code 190, e.g. expired or revoked; `access_token` is then listed in `missing` and creates answer 422 until a new token is set).",
      example: "verified",
    }),
    token_invalid_at: z.string().nullable().openapi({
      description: "When a platform call first refused the stored token (ISO 8601); null unless `token_status` is `invalid`.",
      example: "2026-02-01T08:00:00.000Z",
    }),
    token_error_code: z.number().int().nullable().openapi({ description: "Graph error code of that refusal (190).", example: 190 }),
    token_error_subcode: z.number().int().nullable().openapi({
      description: "Graph error subcode of that refusal, e.g. 463 expired, 460 password changed, 458 app removed; null when Graph gave none.",
      example: 463,
    }),
    complete: z.boolean().openapi({ description: "True when nothing is missing: ad sets and ads can be created.", example: false }),
    present: z.array(z.enum(ONBOARDING_ITEMS)).openapi({
      description:
        "Items that are in place. The ad account, page, Instagram account, DSA beneficiary and payor and the legal name are stored sealed (AES-256-GCM) like the secrets and never returned: this list (and `missing`) is how to see them set.",
      example: ["access_token", "app_secret", "ad_account_id"],
    }),
    missing: z.array(z.enum(ONBOARDING_ITEMS)).openapi({
      description: "Items still missing; the same list customers get in `details.missing`. `access_token` counts only once verified.",
      example: ["page_id"],
    }),
  })
  .openapi("AdsOnboarding");

export const UpdateAdsOnboarding = z
  .strictObject({
    access_token: z.string().trim().min(10).max(2000).optional().openapi({
      description: "System user access token; stored sealed, never returned. Verified with the platform together with the app secret.",
      example: "EAABsbCS1iHgBAxxxxxxxxxxxxxxxx",
    }),
    app_secret: z
      .string()
      .trim()
      .min(8)
      .max(200)
      .optional()
      .openapi({ description: "App secret for `appsecret_proof`; stored sealed, never returned.", example: "0123456789abcdef0123456789abcdef" }),
    ad_account_id: z
      .string()
      .regex(/^(act_)?\d{1,30}$/, "Numeric, optionally prefixed act_.")
      .nullable()
      .optional()
      .openapi({ description: "Ad account id (`act_` prefix optional); verified to be reachable with the token.", example: "act_1234567890" }),
    page_id: graphId("Facebook page id.", "100200300400500").nullable().optional(),
    instagram_account_id: graphId("Instagram account id (second social account).", "17841400000000000").nullable().optional(),
    dsa_beneficiary: text("DSA beneficiary.", "Acme GmbH").nullable().optional(),
    dsa_payor: text("DSA payor.", "Acme GmbH").nullable().optional(),
    legal_name: text("Legal name of the advertiser.", "Acme GmbH").nullable().optional(),
  })
  .openapi("UpdateAdsOnboarding");

const locationKey = z.strictObject({
  key: z.string().min(1).max(64).openapi({ description: "Platform location key.", example: "2951825" }),
  radius: z.number().positive().max(80).optional().openapi({ description: "Radius around a city.", example: 25 }),
  distance_unit: z.enum(["mile", "kilometer"]).optional().openapi({ description: "Unit of `radius`.", example: "kilometer" }),
});

export const AdminGeoLocations = z
  .strictObject({
    countries: z
      .array(z.string().regex(/^[A-Z]{2}$/, "ISO 3166-1 alpha-2"))
      .optional()
      .openapi({ description: "Country codes.", example: ["DE", "AT", "CH"] }),
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
  facebook_positions: positions("Facebook positions.", ["feed", "story", "facebook_reels"]),
  instagram_positions: positions("Instagram positions.", ["stream", "story", "reels"]),
  device_platforms: z
    .array(z.enum(["mobile", "desktop"]))
    .min(1)
    .openapi({ description: "Devices.", example: ["mobile", "desktop"] }),
  advantage_audience: z.union([z.literal(0), z.literal(1)]).openapi({
    description: "Advantage+ audience (Graph `targeting_automation.advantage_audience`): 0 keeps targeting as given, 1 lets the platform widen it.",
    example: 0,
  }),
};

export const AdminTargetConfig = z
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
      .openapi({ description: "Instagram positions; null = all.", example: ["stream", "story", "reels"] }),
    device_platforms: z
      .array(z.string())
      .nullable()
      .openapi({ description: "Devices; null = all.", example: ["mobile", "desktop"] }),
    advantage_audience: configShape.advantage_audience,
  })
  .openapi("AdminTargetConfig", { description: "Fills the fields customers cannot send (the locked fields)." });

export const AdminTargetConfigInput = z
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

export const AdminTargetConfigPatch = z
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

export const TargetKeyParams = z.object({
  id: z.uuid().openapi({ param: { name: "id", in: "path" }, description: "Customer id.", example: "3f0e8a52-6f1e-4c1d-9a43-0d2f1b7c5e11" }),
  key: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "key", in: "path" }, description: "Target key.", example: "demo" }),
});

const pattern = (tokens: readonly string[], description: string, example: string) =>
  z
    .string()
    .min(1)
    .max(200)
    .superRefine((value, ctx) => {
      for (const message of patternProblems(value, tokens)) ctx.addIssue({ code: "custom", message });
    })
    .openapi({ description, example });

export const AdsNaming = z
  .object({
    adset_pattern: z.string().openapi({ description: "Pattern of ad set names.", example: "{target}-{date}-{seq}" }),
    ad_pattern: z.string().openapi({ description: "Pattern of ad names (when the customer gives none).", example: "{adset}-ad{seq}" }),
    adset_pattern_is_default: z.boolean().openapi({ description: "Whether the default ad set pattern applies.", example: true }),
    ad_pattern_is_default: z.boolean().openapi({ description: "Whether the default ad pattern applies.", example: true }),
  })
  .openapi("AdsNaming");

export const UpdateAdsNaming = z
  .strictObject({
    adset_pattern: pattern(
      AD_SET_NAME_TOKENS,
      "Tokens {target}, {date} (UTC, YYYYMMDD), {seq} (required); null restores the default `{target}-{date}-{seq}`.",
      "{target}-{date}-{seq}",
    )
      .nullable()
      .optional(),
    ad_pattern: pattern(AD_NAME_TOKENS, "Tokens {adset}, {target}, {date}, {seq} (required); null restores the default `{adset}-ad{seq}`.", "{adset}-ad{seq}")
      .nullable()
      .optional(),
  })
  .openapi("UpdateAdsNaming");
