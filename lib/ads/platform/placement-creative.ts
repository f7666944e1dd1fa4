import type { AdCreativeCreateParams, AssetCustomizationRule, AssetFeedSpec, CustomizationSpec } from "./types";
import { creativeRatios } from "../../db/schema/index";

/** The three aspect ratios of every creative (the stored vocabulary). */
export const CREATIVE_RATIOS = creativeRatios;
export type CreativeRatio = (typeof CREATIVE_RATIOS)[number];

export type PlacementMedia =
  | { kind: "image"; imageHashes: Record<CreativeRatio, string> }
  | { kind: "video"; videoIds: Record<CreativeRatio, string>; thumbnailHashes?: Partial<Record<CreativeRatio, string>> };

export type PlacementCreativeInput = {
  name?: string;
  pageId: string;
  instagramUserId?: string;
  media: PlacementMedia;
  /** Final destination, tracking parameters already appended by the caller. */
  link: string;
  displayLink?: string;
  message?: string;
  headline?: string;
  description?: string;
  callToAction: string;
  urlTags?: string;
};

const labelOf = (ratio: CreativeRatio) => `ratio_${ratio.replace(":", "x")}`;

/**
 * Which placements show which ratio. Rules are evaluated by priority; the last one has an empty
 * `customization_spec` and is the catch-all Meta requires, so 1:1 covers every placement not named here.
 */
const placementRules: { ratio: CreativeRatio; spec: CustomizationSpec }[] = [
  {
    ratio: "9:16",
    spec: { publisher_platforms: ["facebook", "instagram"], facebook_positions: ["story", "facebook_reels"], instagram_positions: ["story", "reels"] },
  },
  { ratio: "4:5", spec: { publisher_platforms: ["facebook", "instagram"], facebook_positions: ["feed"], instagram_positions: ["stream"] } },
  { ratio: "1:1", spec: {} },
];

/**
 * One ad, three ratios: Placement Asset Customization (`asset_feed_spec` with `asset_customization_rules`,
 * `optimization_type: PLACEMENT`). Copy, link and call to action are shared; only the medium varies by placement.
 */
export function buildPlacementCreative(input: PlacementCreativeInput): AdCreativeCreateParams {
  const rules: AssetCustomizationRule[] = placementRules.map(({ ratio, spec }, index) => ({
    customization_spec: spec,
    ...(input.media.kind === "image" ? { image_label: { name: labelOf(ratio) } } : { video_label: { name: labelOf(ratio) } }),
    priority: index + 1,
  }));
  const media = input.media;
  const assetFeedSpec: AssetFeedSpec = {
    ...(media.kind === "image"
      ? { images: CREATIVE_RATIOS.map((ratio) => ({ hash: media.imageHashes[ratio], adlabels: [{ name: labelOf(ratio) }] })), ad_formats: ["SINGLE_IMAGE"] }
      : {
          videos: CREATIVE_RATIOS.map((ratio) => ({
            video_id: media.videoIds[ratio],
            ...(media.thumbnailHashes?.[ratio] ? { thumbnail_hash: media.thumbnailHashes[ratio] } : {}),
            adlabels: [{ name: labelOf(ratio) }],
          })),
          ad_formats: ["SINGLE_VIDEO"],
        }),
    ...(input.message ? { bodies: [{ text: input.message }] } : {}),
    ...(input.headline ? { titles: [{ text: input.headline }] } : {}),
    ...(input.description ? { descriptions: [{ text: input.description }] } : {}),
    link_urls: [{ website_url: input.link, ...(input.displayLink ? { display_url: input.displayLink } : {}) }],
    call_to_action_types: [input.callToAction],
    asset_customization_rules: rules,
    optimization_type: "PLACEMENT",
  };
  return {
    ...(input.name ? { name: input.name } : {}),
    object_story_spec: { page_id: input.pageId, ...(input.instagramUserId ? { instagram_user_id: input.instagramUserId } : {}) },
    asset_feed_spec: assetFeedSpec,
    ...(input.urlTags ? { url_tags: input.urlTags } : {}),
  };
}
