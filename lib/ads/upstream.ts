import { ApiError, ConflictError, ValidationError } from "../core/errors";
import type { Logger } from "../base/logger";
import { PlatformError, describePlatformError } from "./platform";

/** Graph's code for an access token it no longer accepts (expired, revoked, password changed: G2). */
const TOKEN_REJECTED_CODE = 190;

/** Graph field names -> the ads API's, so a blamed field points at what the caller sent. */
const PLATFORM_FIELD_MAP: Record<string, string> = {
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

/**
 * An object of ours the call names on the platform: the call's own object (`graphField` absent: a
 * `POST /{id}`, `GET /{id}`) or one referenced by a parameter (`adset_id`, `creative`).
 */
export type UpstreamReference = { object: "ad set" | "creative" | "ad" | "audience" | "video"; id: string; platformId: string; graphField?: string };

export type UpstreamContext = { logger: Logger; customerId: string; action: string; references?: readonly UpstreamReference[] };

/**
 * The platform no longer knows an object we recorded (deleted in the platform's own tools, or a simulator
 * that lost its state): Graph answers 100/33 for the object itself and a parameter check (code 100) naming
 * the field for a reference. That is neither the customer's input nor the operator's credentials: 409
 * naming our object, logged for the operator.
 */
function vanishedReference(error: PlatformError, references: readonly UpstreamReference[] = []): UpstreamReference | undefined {
  if (error.code !== 100) return undefined;
  if (error.subcode === 33) return references.find((reference) => reference.graphField === undefined);
  if (error.field === undefined || error.userMessage !== undefined) return undefined;
  return references.find((reference) => reference.graphField !== undefined && error.field === reference.graphField);
}

/**
 * Runs one platform call and turns a `PlatformError` into the ads API's error: 422 with the blamed field,
 * 422 `details.missing: ["access_token"]` for a refused token (code 190), 429 with `Retry-After`, or a 5xx. Credential and permission problems are the operator's to fix: they are
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
  const vanished = vanishedReference(error, context.references);
  if (vanished) {
    context.logger.warn("a platform object recorded here no longer exists upstream", {
      ...fields,
      object: vanished.object,
      id: vanished.id,
      platform_id: vanished.platformId,
    });
    return new ConflictError(
      `The ${vanished.object} ${vanished.id} no longer exists on the ad platform (platform id ${vanished.platformId}): it was deleted there. Create a new one.`,
      { reason: "upstream_object_missing", object: vanished.object.replace(/ /g, "_"), id: vanished.id, platform_id: vanished.platformId },
    );
  }
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
  if (error.kind === "auth" && error.code === TOKEN_REJECTED_CODE) {
    // The refusal is recorded by now, so every later call answers exactly this without calling the platform:
    // the first call that meets it answers the same, not a 5xx the customer could only retry.
    return new ValidationError("Ad account onboarding is incomplete (missing: access_token); the operator completes it.", { missing: ["access_token"] });
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
