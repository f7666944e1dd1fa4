import { z } from "@hono/zod-openapi";

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
      example: ["access_token", "app_secret", "ad_account_id"],
    }),
    missing: z.array(z.enum(ONBOARDING_ITEMS)).openapi({
      description: "Items still missing; the same list customers get in `details.missing`. `access_token` counts only once verified.",
      example: ["page_id"],
    }),
  })
  .openapi("AdsOnboarding");
