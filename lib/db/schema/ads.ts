import { bigint, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import type { GeoLocations, PromotedObject } from "../json-columns";
import { customers } from "./core";
import { configuredStatuses, type creativeRatios } from "./vocabulary";

const at = () => timestamp({ withTimezone: true, mode: "date", precision: 3 });
const customerRef = () =>
  uuid()
    .notNull()
    .references(() => customers.id, { onDelete: "cascade" });

/**
 * The stored part of a target: what fills the locked ad set fields. Graph names, as they go upstream.
 * `advantage_audience` is the opt-in Graph requires on every ad set since v23 (0 keeps the targeting
 * exactly as given).
 */
export type TargetConfigRecord = {
  optimization_goal: string;
  billing_event: string;
  bid_strategy: string | null;
  promoted_object: PromotedObject | null;
  geo_locations: GeoLocations;
  publisher_platforms: string[] | null;
  facebook_positions: string[] | null;
  instagram_positions: string[] | null;
  device_platforms: string[] | null;
  advantage_audience: 0 | 1;
};

/** The customer-chosen part of an ad set's targeting (everything else comes from the target). */
export type CustomerTargetingRecord = {
  age_min?: number;
  age_max?: number;
  genders?: (1 | 2)[];
  flexible_spec?: { interests?: { id: string; name: string }[]; behaviors?: { id: string; name: string }[]; life_events?: { id: string; name: string }[] }[];
};

/** One medium per placement ratio; a plain upload uses the same medium for all three. */
export type RatioMediaRecord = Record<(typeof creativeRatios)[number], string>;

/**
 * Onboarding of one customer's ad account. The access token and the app secret are sealed with
 * AES-256-GCM and never returned; `tokenVerifiedAt` is set only after the platform accepted both.
 * `tokenInvalidAt` and the Graph code/subcode record that a later call was refused with code 190 (expired,
 * revoked): the token then counts as missing until the operator sets one the platform accepts again.
 */
export const adsAccounts = pgTable("ads_accounts", {
  customerId: uuid()
    .primaryKey()
    .references(() => customers.id, { onDelete: "cascade" }),
  accessTokenSealed: text(),
  appSecretSealed: text(),
  tokenVerifiedAt: at(),
  tokenInvalidAt: at(),
  tokenErrorCode: integer(),
  tokenErrorSubcode: integer(),
  adAccountId: text(),
  pageId: text(),
  instagramAccountId: text(),
  dsaBeneficiary: text(),
  dsaPayor: text(),
  legalName: text(),
  /** Null means the documented default pattern. */
  adSetNamePattern: text(),
  adNamePattern: text(),
  createdAt: at().notNull().defaultNow(),
  updatedAt: at().notNull().defaultNow(),
});

export const targetStatuses = ["ACTIVE", "PAUSED"] as const;

/** A target is the operator's campaign; customers reference it by `key`. */
export const adsTargets = pgTable(
  "ads_targets",
  {
    id: uuid().primaryKey().defaultRandom(),
    customerId: customerRef(),
    key: text().notNull(),
    platformCampaignId: text().notNull(),
    status: text({ enum: targetStatuses }).notNull(),
    config: jsonb().$type<TargetConfigRecord>().notNull(),
    createdAt: at().notNull().defaultNow(),
    updatedAt: at().notNull().defaultNow(),
  },
  (t) => [uniqueIndex().on(t.customerId, t.key)],
);

/** Counters behind the naming convention's `{seq}`; one row per customer and scope (target + day, ad set). */
export const adsNameSequences = pgTable(
  "ads_name_sequences",
  {
    customerId: customerRef(),
    scope: text().notNull(),
    value: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.customerId, t.scope] })],
);

/** Images uploaded through us; the bytes live upstream only. One row per image hash (same bytes, same row). */
export const adsImages = pgTable(
  "ads_images",
  {
    id: uuid().primaryKey().defaultRandom(),
    customerId: customerRef(),
    imageHash: text().notNull(),
    url: text().notNull(),
    width: integer().notNull(),
    height: integer().notNull(),
    bytes: integer().notNull(),
    format: text().notNull(),
    createdAt: at().notNull().defaultNow(),
  },
  (t) => [uniqueIndex().on(t.customerId, t.imageHash)],
);

export const videoStatuses = ["PROCESSING", "READY", "FAILED"] as const;

export const adsVideos = pgTable(
  "ads_videos",
  {
    id: uuid().primaryKey().defaultRandom(),
    customerId: customerRef(),
    platformVideoId: text().notNull(),
    status: text({ enum: videoStatuses }).notNull(),
    title: text(),
    processedAt: at(),
    createdAt: at().notNull().defaultNow(),
  },
  (t) => [uniqueIndex().on(t.customerId, t.platformVideoId), index().on(t.customerId, t.createdAt)],
);

export const adSetStatuses = configuredStatuses;

export const adsAdSets = pgTable(
  "ads_ad_sets",
  {
    id: uuid().primaryKey().defaultRandom(),
    customerId: customerRef(),
    targetId: uuid()
      .notNull()
      .references(() => adsTargets.id),
    name: text().notNull(),
    dailyBudgetCents: bigint({ mode: "number" }),
    lifetimeBudgetCents: bigint({ mode: "number" }),
    startTime: at(),
    endTime: at(),
    targeting: jsonb().$type<CustomerTargetingRecord>().notNull(),
    status: text({ enum: adSetStatuses }).notNull(),
    platformAdSetId: text().notNull(),
    createdAt: at().notNull().defaultNow(),
    updatedAt: at().notNull().defaultNow(),
  },
  (t) => [index().on(t.customerId, t.createdAt)],
);

export const creativeStatuses = ["DRAFT", "ACTIVE", "ARCHIVED"] as const;

/**
 * A creative is a draft (media only) until the first ad is built from it; then it carries the platform
 * creative built with that ad's copy and link, and later ads reuse it as it is.
 */
export const adsCreatives = pgTable(
  "ads_creatives",
  {
    id: uuid().primaryKey().defaultRandom(),
    customerId: customerRef(),
    name: text().notNull(),
    type: text({ enum: ["IMAGE", "VIDEO"] }).notNull(),
    status: text({ enum: creativeStatuses }).notNull(),
    imageHashes: jsonb().$type<RatioMediaRecord>(),
    videoIds: jsonb().$type<RatioMediaRecord>(),
    thumbnailHashes: jsonb().$type<Partial<RatioMediaRecord>>(),
    /** Rendered from a template: which one, and the permanent URL of each format. */
    templateId: uuid(),
    formats: jsonb().$type<RatioMediaRecord>(),
    platformCreativeId: text(),
    createdAt: at().notNull().defaultNow(),
    updatedAt: at().notNull().defaultNow(),
  },
  (t) => [index().on(t.customerId, t.createdAt)],
);

export const adStatuses = configuredStatuses;

export const adsAds = pgTable(
  "ads_ads",
  {
    id: uuid().primaryKey().defaultRandom(),
    customerId: customerRef(),
    adSetId: uuid()
      .notNull()
      .references(() => adsAdSets.id),
    creativeId: uuid()
      .notNull()
      .references(() => adsCreatives.id),
    name: text().notNull(),
    status: text({ enum: adStatuses }).notNull(),
    /** Cached from the platform; refreshed by GET /v1/status/{ad_id} and status changes. */
    effectiveStatus: text().notNull(),
    disapprovalReason: text(),
    statusCheckedAt: at(),
    platformAdId: text().notNull(),
    createdAt: at().notNull().defaultNow(),
    updatedAt: at().notNull().defaultNow(),
  },
  (t) => [index().on(t.customerId, t.createdAt), index().on(t.adSetId), index().on(t.platformAdId)],
);

/**
 * One of the month's included ads held while an ad is being published upstream. It is taken together with
 * the count under a per-customer advisory lock, so two requests never both see the last free slot; it
 * turns into the ad row in the transaction that records the ad, and is released when publishing fails.
 * One left behind by a crashed process stops counting at `expiresAt`.
 */
export const adsPublishReservations = pgTable(
  "ads_publish_reservations",
  {
    id: uuid().primaryKey().defaultRandom(),
    customerId: customerRef(),
    createdAt: at().notNull(),
    expiresAt: at().notNull(),
  },
  (t) => [index().on(t.customerId, t.createdAt)],
);

export const adTemplateStatuses = ["active", "inactive"] as const;

/**
 * Ad templates, maintained by the operator for all customers and assigned per customer. `params`,
 * `layouts` and `highlight` are stored as validated on save and parsed again on read (lib/ads/templates).
 * `revision` grows with every change: preview images are addressed by content, so a change gives new URLs.
 */
export const adsTemplates = pgTable("ads_templates", {
  id: uuid().primaryKey().defaultRandom(),
  name: text().notNull(),
  description: text().notNull().default(""),
  type: text({ enum: ["image", "video"] }).notNull(),
  status: text({ enum: adTemplateStatuses }).notNull().default("active"),
  params: jsonb().$type<unknown[]>().notNull(),
  layouts: jsonb().$type<Record<string, unknown>>().notNull(),
  highlight: jsonb().$type<Record<string, unknown> | null>(),
  revision: integer().notNull().default(1),
  createdAt: at().notNull().defaultNow(),
  updatedAt: at().notNull().defaultNow(),
});

export const adsTemplateAssignments = pgTable(
  "ads_template_assignments",
  {
    customerId: customerRef(),
    templateId: uuid()
      .notNull()
      .references(() => adsTemplates.id, { onDelete: "cascade" }),
    /** The operator's preview values for this customer (the customer API only reads them); `{}` = none. */
    previewValues: jsonb().$type<Record<string, string>>().notNull().default({}),
    createdAt: at().notNull().defaultNow(),
    updatedAt: at().notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.customerId, t.templateId] })],
);

/**
 * Rendered template images by content: the hash of the template revision, the values and the ratio. A
 * preview is rendered on its first request and found here afterwards; its URL never changes.
 */
export const adsRenderedImages = pgTable("ads_rendered_images", {
  contentHash: text().primaryKey(),
  url: text().notNull(),
  createdAt: at().notNull().defaultNow(),
});

export const videoRenderStatuses = ["PROCESSING", "READY", "FAILED"] as const;

/**
 * A video template render, run by a queued job; its id is the creative's (`creative_id` for POST /v1/ads).
 * `params` are the values as sent (text, colours and URLs), kept until the job has run.
 */
export const adsVideoRenders = pgTable(
  "ads_video_renders",
  {
    creativeId: uuid()
      .primaryKey()
      .references(() => adsCreatives.id, { onDelete: "cascade" }),
    customerId: customerRef(),
    templateId: uuid().notNull(),
    status: text({ enum: videoRenderStatuses }).notNull(),
    params: jsonb().$type<Record<string, string>>().notNull(),
    reason: text(),
    outputUrls: jsonb().$type<RatioMediaRecord>(),
    videoIds: jsonb().$type<RatioMediaRecord>(),
    /** A job is composing it until then: a second delivery of the queue message leaves it alone. */
    leasedUntil: at(),
    createdAt: at().notNull().defaultNow(),
    updatedAt: at().notNull().defaultNow(),
  },
  (t) => [index().on(t.status, t.updatedAt)],
);

/** Platform objects our API creates; each kind has its compensating call (`lib/ads/compensations.ts`). */
export const compensationKinds = ["adset", "creative", "ad", "audience", "video"] as const;
export const compensationStatuses = ["pending", "done"] as const;

/**
 * One row per platform object created before its local record was written. The row is written right after
 * the platform's create and deleted in the transaction that records the object; a row that stays behind
 * (the local write failed, the process died) names an orphan upstream, which is deleted there and the row
 * settled `done` — at once by the request that failed, or later by the `ads-compensations` sweep.
 */
export const adsCompensations = pgTable(
  "ads_compensations",
  {
    id: uuid().primaryKey().defaultRandom(),
    customerId: customerRef(),
    kind: text({ enum: compensationKinds }).notNull(),
    platformId: text().notNull(),
    status: text({ enum: compensationStatuses }).notNull().default("pending"),
    attempts: integer().notNull().default(0),
    lastError: text(),
    /** The sweep leaves a row alone before this (the request that made it may still record the object). */
    nextAttemptAt: at().notNull(),
    createdAt: at().notNull().defaultNow(),
    settledAt: at(),
  },
  (t) => [index().on(t.status, t.nextAttemptAt)],
);
