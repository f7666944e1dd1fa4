/*
 * Closed word lists written once for every layer: the columns that store them (this folder), the domain
 * schemas that validate and document them (`z.enum(...)`), and the operator console's browser code, which
 * offers them as choices. The file imports nothing, so the console's bundle takes only these words.
 */

export const templateStatuses = ["draft", "active", "archived"] as const;
export const sendJobStatuses = ["draft", "scheduled", "running", "paused", "completed", "cancelled", "failed"] as const;
/** Send jobs that were started and are not over: they still hold their recipients and their template. */
export const unfinishedSendJobStatuses = sendJobStatuses.filter((s) => s === "scheduled" || s === "running" || s === "paused");
/** A mail template's block parameters (`blocks[].params[].type`). */
export const blockParamTypes = ["string", "text", "url", "image"] as const;
export const creativeRatios = ["1:1", "4:5", "9:16"] as const;
/** The configured status of an ad set or an ad (what the customer sets; the platform reports the effective one). */
export const configuredStatuses = ["ACTIVE", "PAUSED", "ARCHIVED"] as const;
/** The parameter types of an ad template. */
export const adTemplateParamTypes = ["text", "color", "image", "video"] as const;
/** CSS font weights a mail design token takes. */
export const fontWeights = ["normal", "bold", "100", "200", "300", "400", "500", "600", "700", "800", "900"] as const;
