import { ApiError, ValidationError } from "../core/errors";
import type { Logger } from "../core/logger";
import { PlatformError, describePlatformError } from "./platform";

/** Graph field names -> the ads API's, so a blamed field points at what the caller sent. */
export const PLATFORM_FIELD_MAP: Record<string, string> = {
  daily_budget: "daily_budget_cents",
  lifetime_budget: "lifetime_budget_cents",
  adset_id: "ad_set_id",
  file_url: "url",
  bytes: "url",
  "object_story_spec.link_data.link": "link",
  "asset_feed_spec.link_urls": "link",
  "asset_feed_spec.bodies": "message",
  "asset_feed_spec.titles": "headline",
  "asset_feed_spec.descriptions": "description",
  "asset_feed_spec.images": "creative_id",
  "asset_feed_spec.videos": "creative_id",
};

export type UpstreamContext = { logger: Logger; customerId: string; action: string };

/**
 * Runs one platform call and turns a `PlatformError` into the ads API's error: 422 with the blamed field,
 * 429 with `Retry-After`, or a 5xx. Credential and permission problems are the operator's to fix: they are
 * logged with what the operator needs (customer, Graph code, trace id) and never with the token, which the
 * client has already removed from every message. A code-190 refusal has also been recorded on the
 * onboarding by then (the session's `onTokenRejected`), so later calls answer 422 `missing` without
 * sending the dead token again.
 */
export async function upstream<T>(context: UpstreamContext, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof PlatformError)) throw error;
    throw toApiError(error, context);
  }
}

export function toApiError(error: PlatformError, context: UpstreamContext): ApiError {
  const fields = {
    customer_id: context.customerId,
    action: context.action,
    kind: error.kind,
    code: error.code,
    subcode: error.subcode,
    fbtrace_id: error.fbtraceId,
  };
  if (error.kind === "auth" || error.kind === "permission") {
    context.logger.error(
      error.kind === "auth"
        ? error.code === 190
          ? "ad platform refused the customer's access token (recorded: the onboarding lists access_token as missing until a new one is set with PATCH /admin/v1/customers/{id}/ads/account)"
          : "ad platform refused the customer's access token: set a new one with PATCH /admin/v1/customers/{id}/ads/account"
        : "ad platform denied access to the customer's ad account, page or object: check the onboarding and the system user's permissions",
      { ...fields, platform_message: error.message },
    );
  } else if (error.outcomeUnknown) {
    context.logger.warn("platform call timed out after it was sent; the object may exist upstream", fields);
  } else if (error.kind === "unknown" || error.kind === "transient") {
    context.logger.warn("platform call failed", { ...fields, platform_message: error.message });
  }
  const described = describePlatformError(error, { fieldMap: PLATFORM_FIELD_MAP });
  const headers: Record<string, string> = described.retryAfterSeconds !== undefined ? { "Retry-After": String(described.retryAfterSeconds) } : {};
  if (described.code === "validation_error") {
    return new ValidationError(
      described.message,
      (described.details ?? []).map((d) => ({ path: d.field, message: d.issue })),
    );
  }
  return new ApiError(described.code, described.message, { headers });
}
