/**
 * The ads service's one interface to the ad platform: the Graph client and its errors. The simulator is
 * imported from `./simulator/*` directly, so production bundles never load it.
 */
export {
  CAMPAIGN_FIELDS,
  MAX_IDS_PER_READ,
  createGraphClient,
  type FetchLike,
  type GraphClient,
  type GraphClientOptions,
  type GraphSession,
  type SessionHooks,
} from "./client";
export {
  PlatformError,
  classifyGraphError,
  describePlatformError,
  type PlatformErrorDescription,
  type PlatformErrorKind,
} from "./errors";
export { appSecretProof, encodeGraphParams } from "./graph-params";
export { CREATIVE_RATIOS, buildPlacementCreative, type CreativeRatio, type PlacementCreativeInput, type PlacementMedia } from "./placement-creative";
export * from "./types";
export {
  AUDIENCE_USERS_MAX_ROWS,
  RESTRICTED_OPERATION_CODE,
  RESTRICTED_UPLOAD_SUBCODE,
  type AudienceUsersBatch,
  type CustomAudienceView,
  type GeoLocationResult,
  type InterestResult,
  type LookalikeSpec,
} from "./audiences";
