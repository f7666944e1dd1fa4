/**
 * The ads service's one interface to the ad platform: the Graph client and its errors. The simulator is
 * imported from `./simulator/*` directly, so production bundles never load it.
 */
export {
  MAX_IDS_PER_READ,
  createGraphClient,
  type AdVideo,
  type CampaignField,
  type GraphClient,
  type GraphSession,
} from "./client";
export {
  PlatformError,
  describePlatformError,
} from "./errors";
export { appSecretProof } from "./graph-params";
export { buildPlacementCreative, type PlacementMedia } from "./placement-creative";
export * from "./types";
export {
  AUDIENCE_USERS_MAX_ROWS,
  RESTRICTED_OPERATION_CODE,
  RESTRICTED_UPLOAD_SUBCODE,
  type CustomAudienceView,
} from "./audiences";
