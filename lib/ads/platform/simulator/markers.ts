/**
 * Controllable outcomes of the Graph simulator. Portal developers put these into their own data to
 * exercise the unhappy paths offline.
 */

/**
 * Ad copy containing this text is disapproved at the end of review. `SIM_DISAPPROVE:TEXT_OVERLAY` picks
 * the policy code that appears as the key of `ad_review_feedback.global`.
 */
export const SIM_DISAPPROVE = "SIM_DISAPPROVE";

/** Default policy code and description of a simulated disapproval (codes as in Ad Review Feedback). */
export const SIM_DEFAULT_DISAPPROVAL = {
  code: "MISLEADING_CLAIMS",
  description: "Ads must not contain deceptive, false or misleading claims.",
} as const;

/**
 * Ad copy containing this text goes through post-processing (`IN_PROCESS` for the simulator's
 * `processingDelayMs`) and then into review; the platform webhook reports that it left IN_PROCESS.
 */
export const SIM_IN_PROCESS = "SIM_IN_PROCESS";

/**
 * Ad copy containing this text fails post-processing: after `IN_PROCESS` the ad stays `WITH_ISSUES` with
 * `issues_info`, and the platform webhook reports both (`in_process_ad_objects`, `with_issues_ad_objects`).
 */
export const SIM_WITH_ISSUES = "SIM_WITH_ISSUES";

/** What a simulated post-processing failure reports (`issues_info[]`, `with_issues_ad_objects`). */
export const SIM_ISSUE = {
  level: "AD",
  error_code: "1815869",
  error_summary: "Ad post-processing failed",
  error_message: "The ad could not be processed after it was saved: its creative references media that is no longer available.",
} as const;

/** A video whose `file_url` contains this text ends its processing with `video_status: "error"`. */
export const SIM_VIDEO_FAIL = "sim-fail";

/**
 * EU member states: DSA transparency (`dsa_beneficiary`, `dsa_payor`) is required when an ad set reaches
 * any of them. EEA-only states (IS, LI, NO) are outside the DSA and not listed.
 */
export const EU_COUNTRIES: ReadonlySet<string> = new Set([
  "AT",
  "BE",
  "BG",
  "HR",
  "CY",
  "CZ",
  "DK",
  "EE",
  "FI",
  "FR",
  "DE",
  "GR",
  "HU",
  "IE",
  "IT",
  "LV",
  "LT",
  "LU",
  "MT",
  "NL",
  "PL",
  "PT",
  "RO",
  "SK",
  "SI",
  "ES",
  "SE",
]);

/** `geo_locations.country_groups` values that include EU member states. */
export const EU_COUNTRY_GROUPS: ReadonlySet<string> = new Set(["worldwide", "europe", "eu", "eea", "euro_area", "schengen"]);

/**
 * A customer-file audience whose name contains this text is restricted (operation status 471): adding or
 * removing users answers code 100, subcode 1713230 ("Audience Upload Blocked").
 */
export const SIM_RESTRICTED_AUDIENCE = "SIM_RESTRICTED";
