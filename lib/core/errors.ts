/**
 * One error model for both services: a closed code enum, one status map, one envelope.
 * Handlers and services only `throw`; `lib/core/app.ts` turns errors into responses.
 */
export const serviceErrorCodes = [
  "bad_request",
  "unauthorized",
  "payment_required",
  "forbidden",
  "not_found",
  "method_not_allowed",
  "conflict",
  "validation_error",
  "rate_limited",
  "quota_exceeded",
  "payload_too_large",
  "internal_error",
  "service_unavailable",
  "schema_behind",
] as const;

/**
 * Every code. Two 503s any surface can answer, whatever the route, and every operation of the three documents
 * lists: `service_unavailable` while the database is unreachable (`./database-unavailable`) and `schema_behind`
 * while the database is older than the code (a deploy whose migrations have not run yet); both with
 * `Retry-After`.
 */
export type ErrorCode = (typeof serviceErrorCodes)[number];

export type ServiceName = "mail" | "ads" | "admin";

/** Whose envelope an answer is: one of the three APIs, or the internal endpoints under `/api/*`. */
export type Surface = ServiceName | "internal";

/** `quota_exceeded` is 429 in the mail spec and 402 in the ads spec; everything else is shared. */
export function statusOf(code: ErrorCode, service: Surface): number {
  switch (code) {
    case "bad_request":
      return 400;
    case "unauthorized":
      return 401;
    case "payment_required":
      return 402;
    case "forbidden":
      return 403;
    case "not_found":
      return 404;
    case "method_not_allowed":
      return 405;
    case "conflict":
      return 409;
    case "validation_error":
      return 422;
    case "rate_limited":
      return 429;
    case "quota_exceeded":
      return service === "ads" ? 402 : 429;
    case "internal_error":
      return 500;
    case "payload_too_large":
      return 413;
    case "service_unavailable":
    case "schema_behind":
      return 503;
  }
}

/** Mail-style detail entry: `{ path, message }`. */
export type PathDetail = { path: string; message: string };
/** Ads-style detail entry: `{ field, issue }`. */
type FieldDetail = { field: string; issue: string };
/** Field-level problems, shaped per service when the response is written. */
export type FieldProblem = { path: string; message: string };

export type ErrorDetails = FieldProblem[] | Record<string, unknown> | null;

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;
  readonly headers: Record<string, string>;
  /** Extra fields of the error object (e.g. the `message_id` of a send whose outcome is unknown). */
  readonly extra: Record<string, unknown> | undefined;
  /** The mail spec's one conflict whose `details` stays an object (see `SpamComplaintConflictError`). */
  readonly keepsDetailsObject: boolean;

  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: ErrorDetails; headers?: Record<string, string>; extra?: Record<string, unknown>; keepsDetailsObject?: boolean } = {},
  ) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.details = options.details ?? null;
    this.headers = options.headers ?? {};
    this.extra = options.extra;
    this.keepsDetailsObject = options.keepsDetailsObject ?? false;
  }
}

/** How much of a request's path an answer echoes: enough to recognise it, never the whole of a huge request line. */
const ECHOED_PATH_CHARS = 64;

/** `path` cut to `ECHOED_PATH_CHARS`, with an ellipsis where it was cut. */
export function echoedPath(path: string): string {
  return path.length > ECHOED_PATH_CHARS ? `${path.slice(0, ECHOED_PATH_CHARS)}…` : path;
}

/** The 404 of a path no route serves, on every surface (the three APIs, `/api/*`, the root, the Vercel functions). */
export function noEndpointError(method: string, path: string): ApiError {
  return new ApiError("not_found", `No endpoint ${method.slice(0, 16)} ${echoedPath(path)}.`);
}

export class NotFoundError extends ApiError {
  constructor(what: string) {
    super("not_found", `${what} not found.`);
  }
}

export class ConflictError extends ApiError {
  constructor(message: string, details?: ErrorDetails, headers?: Record<string, string>) {
    super("conflict", message, { details, headers });
  }
}

/**
 * Reactivating an address that complained of spam: the one mail error whose `details` is the object
 * `{ reason: "spam_complaint" }`, as the mail spec names it.
 */
export class SpamComplaintConflictError extends ApiError {
  constructor(message: string) {
    super("conflict", message, { details: { reason: "spam_complaint" }, keepsDetailsObject: true });
  }
}

export class ForbiddenError extends ApiError {
  constructor(message: string, details?: ErrorDetails) {
    super("forbidden", message, { details });
  }
}

export class ValidationError extends ApiError {
  constructor(message: string, details: ErrorDetails) {
    super("validation_error", message, { details });
  }
}

export class BadRequestError extends ApiError {
  constructor(message: string, details?: ErrorDetails) {
    super("bad_request", message, { details });
  }
}

export class QuotaExceededError extends ApiError {
  constructor(message: string, details?: ErrorDetails, headers?: Record<string, string>) {
    super("quota_exceeded", message, { details, headers });
  }
}

export class PaymentRequiredError extends ApiError {
  constructor(message: string, details?: ErrorDetails) {
    super("payment_required", message, { details });
  }
}

/**
 * A cause given as an object, as the mail spec's `[{ path, message }]`: one entry per value, its dotted
 * path and the value as text (`{ reason: "asset_in_use", template_ids: [t] }` becomes
 * `[{ path: "reason", message: "asset_in_use" }, { path: "template_ids.0", message: t }]`).
 */
function pathPairs(value: unknown, path: string): PathDetail[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => pathPairs(item, path ? `${path}.${i}` : String(i)));
  if (value !== null && typeof value === "object") {
    return Object.entries(value).flatMap(([key, item]) => pathPairs(item, path ? `${path}.${key}` : key));
  }
  return [{ path, message: String(value) }];
}

/**
 * Shapes `details` for the service's documented format: ads `[{ field, issue }]` or its objects; mail
 * `[{ path, message }]`, where a cause given as an object (`{ reason, … }`, shared with ads) becomes
 * path/message pairs. Mail keeps two objects: the spam-complaint reactivation's `{ reason }` (the spec's
 * one exception) and the `{ missing }` of an account whose sending is not set up (403).
 */
function shapeDetails(error: ApiError, service: Surface): unknown {
  const details = error.details;
  // No details is `[]` on every surface: a client reads `details` as a list without a null check.
  if (details === null) return [];
  if (!Array.isArray(details)) {
    const keep = service !== "mail" || error.keepsDetailsObject || (error.code === "forbidden" && "missing" in details);
    return keep ? details : pathPairs(details, "");
  }
  if (service === "ads") return details.map((d): FieldDetail => ({ field: d.path, issue: d.message }));
  return details;
}

export function errorBody(error: ApiError, service: Surface, requestId: string) {
  return {
    error: { code: error.code, message: error.message, details: shapeDetails(error, service), ...(error.extra ?? {}) },
    request_id: requestId,
  };
}
