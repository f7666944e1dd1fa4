import { z } from "@hono/zod-openapi";
import { graphId, text } from "../fields";

/**
 * What complete onboarding consists of, in the order `details.missing` lists it. `access_token` counts as
 * present only once the platform accepted it together with the app secret, and no longer once a later
 * call was refused with code 190.
 */
export const ONBOARDING_ITEMS = [
  "access_token",
  "app_secret",
  "ad_account_id",
  "page_id",
  "instagram_account_id",
  "dsa_beneficiary",
  "dsa_payor",
  "legal_name",
] as const;

/** Media calls and the operator's campaign checks only need a working token on an ad account. */
export const AD_ACCOUNT_ITEMS = ["access_token", "app_secret", "ad_account_id"] as const satisfies readonly (typeof ONBOARDING_ITEMS)[number][];

/**
 * `missing`: no token; `unverified`: stored, waiting for the app secret; `verified`: accepted by the
 * platform; `invalid`: accepted once, then refused with code 190 (expired or revoked).
 */
export const TOKEN_STATUSES = ["missing", "unverified", "verified", "invalid"] as const;

/** The onboarding as the operator reads it (`GET`/`PATCH /v1/customers/{id}/ads/account` of the admin API); nothing stored is returned. */
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
      example: [...AD_ACCOUNT_ITEMS],
    }),
    missing: z.array(z.enum(ONBOARDING_ITEMS)).openapi({
      description: "Items still missing; the same list customers get in `details.missing`. `access_token` counts only once verified.",
      example: ["page_id"],
    }),
  })
  .openapi("AdsOnboarding");

/** The operator's change to a customer's ads onboarding (`PATCH` of the admin API); every field optional. */
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
