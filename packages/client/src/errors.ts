import type { components as AdsComponents } from "./types/ads.js";
import type { components as MailComponents } from "./types/mail.js";

/**
 * Errors as a union keyed by `code`, per service, with `details` typed for each code as the OpenAPI
 * documents give it. Narrow on `code` and `details` follows:
 *
 *   if (error.code === "conflict") error.details;          // mail: ErrorDetail[] | { reason: "spam_complaint" }
 *   if (error.code === "validation_error") error.details;  // ads: [{ field, issue }] | { missing } | { locked_fields } | null
 */
type MailSchemas = MailComponents["schemas"];
type AdsSchemas = AdsComponents["schemas"];

export type MailErrorCode = MailSchemas["MailError"]["error"]["code"];
export type AdsErrorCode = AdsSchemas["AdsError"]["error"]["code"];

type MailDetailsOf<C extends MailErrorCode> = C extends "conflict"
  ? MailSchemas["MailConflictError"]["error"]["details"]
  : C extends "forbidden"
    ? MailSchemas["MailForbiddenError"]["error"]["details"]
    : MailSchemas["MailError"]["error"]["details"];

type AdsDetailsOf<C extends AdsErrorCode> = C extends "validation_error" | "bad_request"
  ? AdsSchemas["AdsValidationError"]["error"]["details"]
  : C extends "conflict" | "payment_required" | "quota_exceeded"
    ? AdsSchemas["AdsStateError"]["error"]["details"]
    : AdsSchemas["AdsError"]["error"]["details"];

/** One mail error object (`body.error`), discriminated by `code`. */
export type MailErrorObject = {
  [C in MailErrorCode]: { code: C; message: string; details: MailDetailsOf<C>; message_id?: string };
}[MailErrorCode];

/** One ads error object (`body.error`), discriminated by `code`. */
export type AdsErrorObject = {
  [C in AdsErrorCode]: { code: C; message: string; details: AdsDetailsOf<C>; message_id?: string };
}[AdsErrorCode];

/** The envelope every error answer has: `{ error, request_id }`. */
export type ErrorEnvelope<E> = { error: E; request_id: string };

/**
 * Thrown by `unwrap` and the list iterators for an answer that is not 2xx. `error` is the service's
 * discriminated union: `switch (e.error.code)` narrows `e.error.details`. An answer that is not the
 * service's envelope (a proxy's 502, say) gets code `internal_error` and the text as its message.
 */
export class ApiError<E extends { code: string; message: string; details: unknown } = MailErrorObject | AdsErrorObject> extends Error {
  override readonly name = "ApiError";
  readonly status: number;
  readonly error: E;
  readonly requestId: string | null;
  /** Seconds from the `Retry-After` header (429, 503), else null. */
  readonly retryAfter: number | null;

  constructor(status: number, error: E, requestId: string | null, retryAfter: number | null) {
    super(`${status} ${error.code}: ${error.message}`);
    this.status = status;
    this.error = error;
    this.requestId = requestId;
    this.retryAfter = retryAfter;
  }

  get code(): E["code"] {
    return this.error.code;
  }
}

export type MailApiError = ApiError<MailErrorObject>;
export type AdsApiError = ApiError<AdsErrorObject>;

/** Seconds to wait from a `Retry-After` value: delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, nowMs = Date.now()): number | null {
  if (value === null || value.trim() === "") return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - nowMs) / 1000));
}

/** Builds the `ApiError` of a non-2xx answer from its parsed body (openapi-fetch's `error`) and response. */
export function apiErrorOf<E extends MailErrorObject | AdsErrorObject>(body: unknown, response: Response): ApiError<E> {
  const envelope = body as Partial<ErrorEnvelope<E>> | string | undefined;
  const requestId = response.headers.get("x-request-id");
  const retryAfter = parseRetryAfter(response.headers.get("retry-after"));
  if (envelope && typeof envelope === "object" && envelope.error && typeof envelope.error.code === "string") {
    return new ApiError<E>(response.status, envelope.error, envelope.request_id ?? requestId, retryAfter);
  }
  const message = typeof body === "string" && body !== "" ? body.slice(0, 500) : `HTTP ${response.status} ${response.statusText}`.trim();
  return new ApiError<E>(response.status, { code: "internal_error", message, details: [] } as unknown as E, requestId, retryAfter);
}
