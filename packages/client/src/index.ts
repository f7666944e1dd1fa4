/**
 * `@mail-ads/client`: the typed client of the mail and ads services for portals. The types are generated
 * from the services' OpenAPI documents; calls go through openapi-fetch, with retries (429/503 after
 * `Retry-After`), an `Idempotency-Key` on every write, async iterators over lists, typed errors and the
 * webhook verifier.
 *
 *   import { createMailClient } from "@mail-ads/client";
 *   const mail = createMailClient({ baseUrl: "https://api.example.com/mail/v1", apiKey: process.env.MAIL_KEY! });
 *   const { data, error } = await mail.GET("/v1/templates/{id}", { params: { path: { id } } });
 */
export {
  type AdsClient,
  createAdsClient,
  createMailClient,
  type ListItem,
  type ListPath,
  type MailClient,
  type RetryOptions,
  resilientFetch,
  type ServiceClient,
  type ServiceClientOptions,
} from "./client.js";
export {
  type AdsApiError,
  type AdsErrorCode,
  type AdsErrorObject,
  ApiError,
  apiErrorOf,
  type ErrorEnvelope,
  type MailApiError,
  type MailErrorCode,
  type MailErrorObject,
  parseRetryAfter,
} from "./errors.js";
export type { components as AdsComponents, operations as AdsOperations, paths as AdsPaths } from "./types/ads.js";
export type { components as MailComponents, operations as MailOperations, paths as MailPaths } from "./types/mail.js";
export {
  type AdsWebhookEvent,
  DEFAULT_TOLERANCE_SECONDS,
  DELIVERY_HEADER,
  EVENT_HEADER,
  type MailWebhookEvent,
  type RawBody,
  SIGNATURE_HEADER,
  type VerifyWebhookOptions,
  verifyAdsWebhook,
  verifyMailWebhook,
  verifyWebhook,
  type WebhookEvent,
  type WebhookHeaders,
  WebhookVerificationError,
  type WebhookVerificationErrorCode,
} from "./webhooks.js";
