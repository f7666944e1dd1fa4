/**
 * The subset of Graph API v25.0 (Marketing API) shapes the ads service speaks, named as Graph names them
 * (snake_case on the wire), so the client and the simulator cannot drift apart on a field name.
 */

export const GRAPH_API_VERSION = "v25.0";
export const GRAPH_PRODUCTION_BASE_URL = `https://graph.facebook.com/${GRAPH_API_VERSION}`;

/** Per customer; held in a closure by the client, never logged, never part of an error. */
export type PlatformCredentials = { accessToken: string; appSecret: string };

/** The statuses Graph takes and answers for a campaign, ad set or ad (ours never sets `DELETED`). */
export const GRAPH_CONFIGURED_STATUSES = ["ACTIVE", "PAUSED", "ARCHIVED", "DELETED"] as const;
export type ConfiguredStatus = (typeof GRAPH_CONFIGURED_STATUSES)[number];

/** `effective_status` values we know (each checked against the official SDK's `Ad.EffectiveStatus` in a test). */
export const KNOWN_EFFECTIVE_STATUSES = [
  "ACTIVE",
  "PAUSED",
  "ARCHIVED",
  "DELETED",
  "PENDING_REVIEW",
  "DISAPPROVED",
  "PREAPPROVED",
  "PENDING_BILLING_INFO",
  "CAMPAIGN_PAUSED",
  "ADSET_PAUSED",
  "IN_PROCESS",
  "WITH_ISSUES",
] as const;

/** Graph may add values, so the type stays open. */
type EffectiveStatus = (typeof KNOWN_EFFECTIVE_STATUSES)[number] | (string & {});

import type { GeoLocation, GeoLocations, PromotedObject } from "../../db/json-columns";

export type { GeoLocation };

type TargetingEntity = { id: string; name?: string };

type FlexibleSpecGroup = {
  interests?: TargetingEntity[];
  behaviors?: TargetingEntity[];
  life_events?: TargetingEntity[];
};

export type Targeting = {
  geo_locations?: GeoLocations;
  age_min?: number;
  age_max?: number;
  genders?: number[];
  flexible_spec?: FlexibleSpecGroup[];
  custom_audiences?: TargetingEntity[];
  excluded_custom_audiences?: TargetingEntity[];
  publisher_platforms?: string[];
  facebook_positions?: string[];
  instagram_positions?: string[];
  device_platforms?: string[];
  /** Required on ad set create since v23: Advantage+ audience opt-in (1) or opt-out (0). */
  targeting_automation?: { advantage_audience: 0 | 1 };
};

/** Budgets are integers in the account currency's minor unit (cents), as Graph takes them. */
export type AdSetCreateParams = {
  name: string;
  campaign_id: string;
  status: "ACTIVE" | "PAUSED";
  billing_event: string;
  optimization_goal: string;
  targeting: Targeting;
  daily_budget?: number;
  lifetime_budget?: number;
  bid_strategy?: string;
  bid_amount?: number;
  start_time?: string;
  end_time?: string;
  promoted_object?: PromotedObject;
  destination_type?: string;
  /** DSA (EU Digital Services Act) transparency: required whenever the targeting reaches the EU. */
  dsa_beneficiary?: string;
  dsa_payor?: string;
};

export type AdSetUpdateParams = Partial<
  Pick<AdSetCreateParams, "name" | "daily_budget" | "lifetime_budget" | "start_time" | "end_time" | "targeting" | "bid_amount">
> & { status?: "ACTIVE" | "PAUSED" | "ARCHIVED" };

type CallToAction = { type: string; value?: { link?: string; link_caption?: string } };

type LinkData = {
  link: string;
  message?: string;
  name?: string;
  description?: string;
  caption?: string;
  image_hash?: string;
  picture?: string;
  call_to_action?: CallToAction;
};

type VideoData = {
  video_id: string;
  message?: string;
  title?: string;
  link_description?: string;
  image_hash?: string;
  image_url?: string;
  call_to_action?: CallToAction;
};

export type ObjectStorySpec = {
  page_id: string;
  instagram_user_id?: string;
  link_data?: LinkData;
  video_data?: VideoData;
};

type AdLabel = { name: string };
type AssetFeedImage = { hash: string; url_tags?: string; adlabels?: AdLabel[] };
type AssetFeedVideo = { video_id: string; thumbnail_hash?: string; thumbnail_url?: string; url_tags?: string; adlabels?: AdLabel[] };
type AssetFeedText = { text: string; adlabels?: AdLabel[] };
type AssetFeedLinkUrl = { website_url: string; display_url?: string; adlabels?: AdLabel[] };

/** Placement filter of one asset customization rule; `{}` is the catch-all default rule. */
export type CustomizationSpec = {
  publisher_platforms?: string[];
  facebook_positions?: string[];
  instagram_positions?: string[];
  messenger_positions?: string[];
  audience_network_positions?: string[];
};

export type AssetCustomizationRule = {
  customization_spec: CustomizationSpec;
  image_label?: AdLabel;
  video_label?: AdLabel;
  body_label?: AdLabel;
  title_label?: AdLabel;
  link_url_label?: AdLabel;
  priority?: number;
};

export type AssetFeedSpec = {
  images?: AssetFeedImage[];
  videos?: AssetFeedVideo[];
  bodies?: AssetFeedText[];
  titles?: AssetFeedText[];
  descriptions?: AssetFeedText[];
  link_urls?: AssetFeedLinkUrl[];
  call_to_action_types?: string[];
  ad_formats: ("SINGLE_IMAGE" | "SINGLE_VIDEO" | "CAROUSEL" | "AUTOMATIC_FORMAT")[];
  asset_customization_rules?: AssetCustomizationRule[];
  optimization_type?: "PLACEMENT" | "LANGUAGE" | "REGULAR";
};

export type AdCreativeCreateParams = {
  name?: string;
  object_story_spec: ObjectStorySpec;
  asset_feed_spec?: AssetFeedSpec;
  /** Query string appended to every link of the ad (tracking parameters). */
  url_tags?: string;
};

export type AdCreateParams = {
  name: string;
  adset_id: string;
  creative: { creative_id: string };
  status: "ACTIVE" | "PAUSED";
};

export type AdUpdateParams = { name?: string; status?: "ACTIVE" | "PAUSED" | "ARCHIVED"; creative?: { creative_id: string } };

export type AdReviewFeedback = {
  global?: Record<string, string>;
  placement_specific?: Record<string, Record<string, string>>;
};

export type AdStatusView = {
  id: string;
  effective_status: EffectiveStatus;
  /** Absent when Graph left out `configured_status` and `status` (a disapproved ad as Meta's docs show it). */
  configured_status?: ConfiguredStatus;
  ad_review_feedback?: AdReviewFeedback;
  /** Why an object is WITH_ISSUES (G4): `error_code` is a number or a numeric string (W3). */
  issues_info?: AdIssue[];
};

export type AdIssue = { level?: string; error_code?: string; error_summary?: string; error_message?: string };

export type CampaignUpdateParams = { name?: string; status?: "ACTIVE" | "PAUSED" | "ARCHIVED" };

/** The Graph error object, as received (before classification). */
export type GraphErrorBody = {
  message?: string;
  type?: string;
  code?: number;
  error_subcode?: number;
  error_user_title?: string;
  error_user_msg?: string;
  fbtrace_id?: string;
  is_transient?: boolean;
  error_data?: unknown;
};
