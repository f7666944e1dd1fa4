import type { GraphErrorBody } from "./types";

export type PlatformErrorKind = "validation" | "rate_limited" | "auth" | "permission" | "transient" | "policy" | "unknown";

export type PlatformErrorInit = {
  kind: PlatformErrorKind;
  message: string;
  code?: number;
  subcode?: number;
  userTitle?: string;
  userMessage?: string;
  field?: string;
  fbtraceId?: string;
  httpStatus?: number;
  retryAfterSeconds?: number;
  outcomeUnknown?: boolean;
};

/**
 * A failed Graph call, classified. Carries only what Graph said and our classification: never the
 * access token, the app secret or the request URL (GET calls carry the token in the query string).
 */
export class PlatformError extends Error {
  readonly kind: PlatformErrorKind;
  readonly code: number | undefined;
  readonly subcode: number | undefined;
  readonly userTitle: string | undefined;
  /** `error_user_msg`: localized, safe to show, never to branch on (G1). */
  readonly userMessage: string | undefined;
  /** Blamed field from `error_data.blame_field_specs`, dotted (`targeting.geo_locations`). */
  readonly field: string | undefined;
  /** Support id for Meta; log it, never key on it. */
  readonly fbtraceId: string | undefined;
  readonly httpStatus: number | undefined;
  /** From the Business Use Case header when Graph estimates when access comes back. */
  readonly retryAfterSeconds: number | undefined;
  /** A create timed out after the request left: it may exist upstream, so it was not repeated. */
  readonly outcomeUnknown: boolean;

  constructor(init: PlatformErrorInit) {
    super(init.message);
    this.name = "PlatformError";
    this.kind = init.kind;
    this.code = init.code;
    this.subcode = init.subcode;
    this.userTitle = init.userTitle;
    this.userMessage = init.userMessage;
    this.field = init.field;
    this.fbtraceId = init.fbtraceId;
    this.httpStatus = init.httpStatus;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.outcomeUnknown = init.outcomeUnknown ?? false;
  }

  get retryable(): boolean {
    return this.kind === "rate_limited" || this.kind === "transient";
  }

  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      kind: this.kind,
      message: this.message,
      code: this.code,
      subcode: this.subcode,
      userTitle: this.userTitle,
      userMessage: this.userMessage,
      field: this.field,
      fbtraceId: this.fbtraceId,
      httpStatus: this.httpStatus,
      retryAfterSeconds: this.retryAfterSeconds,
      outcomeUnknown: this.outcomeUnknown,
    };
  }
}

/** Rate-limit codes (G2): app 4, user 17, 32 page, 341 app limit, 613 calls, 80000–80014 Business Use Case. */
function isRateLimitCode(code: number): boolean {
  return code === 4 || code === 17 || code === 32 || code === 341 || code === 613 || (code >= 80000 && code <= 80014);
}

/**
 * Classification by `code` and `error_subcode` only: `type` is "OAuthException" even for code 100 and the
 * messages are localized (G1), so neither may decide anything.
 */
export function classifyGraphError(code: number | undefined, subcode: number | undefined, isTransient: boolean): PlatformErrorKind {
  if (code === undefined) return isTransient ? "transient" : "unknown";
  if (code === 190 || code === 102 || code === 104) return "auth";
  if (isRateLimitCode(code)) return "rate_limited";
  if (code === 1 || code === 2 || isTransient) return "transient";
  // 100/33: "does not exist, cannot be loaded due to missing permissions" — the object is out of the token's reach.
  if (code === 100 && subcode === 33) return "permission";
  if (code === 10 || code === 294 || (code >= 200 && code <= 299)) return "permission";
  if (code === 368) return "policy";
  if (code === 100 || code === 506 || code === 2500) return "validation";
  return "unknown";
}

/** `error_data` may be an object or a JSON string holding one (PHP SDK `getErrorData`); read both. */
function blamedField(errorData: unknown): string | undefined {
  let data = errorData;
  if (typeof data === "string") {
    try {
      data = JSON.parse(data) as unknown;
    } catch {
      return undefined;
    }
  }
  if (data === null || typeof data !== "object" || !("blame_field_specs" in data)) return undefined;
  const specs = data.blame_field_specs;
  if (!Array.isArray(specs) || specs.length === 0) return undefined;
  const first: unknown = specs[0];
  if (Array.isArray(first)) return first.filter((part): part is string => typeof part === "string").join(".") || undefined;
  return typeof first === "string" ? first : undefined;
}

function asNumber(value: unknown): number | undefined {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value);
  return undefined;
}

function asString(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** Reads `{ error: {...} }` from a parsed response body; `undefined` when it is not a Graph error. */
export function readGraphErrorBody(body: unknown): GraphErrorBody | undefined {
  if (body === null || typeof body !== "object" || !("error" in body)) return undefined;
  const error = body.error;
  if (error === null || typeof error !== "object") return undefined;
  const record = error as Record<string, unknown>;
  return {
    message: asString(record.message),
    type: asString(record.type),
    code: asNumber(record.code),
    error_subcode: asNumber(record.error_subcode),
    error_user_title: asString(record.error_user_title),
    error_user_msg: asString(record.error_user_msg),
    fbtrace_id: asString(record.fbtrace_id),
    is_transient: record.is_transient === true,
    error_data: record.error_data,
  };
}

export type GraphErrorContext = {
  httpStatus?: number;
  retryAfterSeconds?: number;
  /** Secrets of the call: removed from any text Graph echoes back, whatever it echoes. */
  redact?: readonly string[];
};

export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join("[redacted]");
  return out;
}

export function platformErrorFromGraph(error: GraphErrorBody, context: GraphErrorContext = {}): PlatformError {
  const clean = (text: string | undefined) => (text === undefined ? undefined : redactSecrets(text, context.redact));
  const kind = classifyGraphError(error.code, error.error_subcode, error.is_transient === true);
  return new PlatformError({
    kind,
    message: clean(error.message) ?? `Graph API error${error.code === undefined ? "" : ` ${error.code}`}`,
    code: error.code,
    subcode: error.error_subcode,
    userTitle: clean(error.error_user_title),
    userMessage: clean(error.error_user_msg),
    field: blamedField(error.error_data),
    fbtraceId: error.fbtrace_id,
    httpStatus: context.httpStatus,
    retryAfterSeconds: kind === "rate_limited" ? context.retryAfterSeconds : undefined,
  });
}

export type PlatformErrorDescription = {
  status: 422 | 429 | 502 | 503;
  code: "validation_error" | "rate_limited" | "internal_error";
  message: string;
  details: { field: string; issue: string }[] | null;
  /** For a `Retry-After` header on 429/503. */
  retryAfterSeconds?: number;
};

/**
 * What the ads API answers when the platform refused a call. Only problems the caller can fix (the
 * platform named a field or wrote a message for the user) become 422; credentials, permissions and
 * requests we built wrongly are ours and become 502, because the customer cannot act on them.
 * `fieldMap` translates Graph field names into the ads API's (e.g. `daily_budget` -> `daily_budget_cents`).
 */
export function describePlatformError(error: PlatformError, options: { fieldMap?: Record<string, string> } = {}): PlatformErrorDescription {
  switch (error.kind) {
    case "validation":
    case "policy": {
      const issue = error.userMessage ?? error.userTitle;
      if (issue === undefined) break;
      const upstreamField = error.field ?? "request";
      return {
        status: 422,
        code: "validation_error",
        message: `The ad platform rejected the request${error.userTitle ? `: ${error.userTitle}` : "."}`,
        details: [{ field: options.fieldMap?.[upstreamField] ?? upstreamField, issue }],
      };
    }
    case "rate_limited":
      return {
        status: 429,
        code: "rate_limited",
        message: "The ad platform is rate limiting this ad account; retry later.",
        details: null,
        retryAfterSeconds: error.retryAfterSeconds ?? 60,
      };
    case "transient":
      return {
        status: 503,
        code: "internal_error",
        message: "The ad platform is temporarily unavailable; retry with backoff.",
        details: null,
        retryAfterSeconds: 30,
      };
    case "auth":
    case "permission":
    case "unknown":
      break;
  }
  return {
    status: 502,
    code: "internal_error",
    message: "The ad platform refused the request; the operator has to check the ad account connection.",
    details: null,
  };
}
