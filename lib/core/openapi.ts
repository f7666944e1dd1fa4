import { z } from "@hono/zod-openapi";
import { serviceErrorCodes, type ServiceName } from "./errors";

const RequestId = z
  .string()
  .openapi({ description: "Id of this request (UUID, or the caller's X-Request-Id).", example: "5b0e3c4e-7c8d-4a0e-9d7e-0b6b8f1d2c3a" });

/** `{ data, request_id }` around a named schema. */
export function envelope<T extends z.ZodType>(data: T) {
  return z.object({ data, request_id: RequestId });
}

const Paging = z
  .object({
    after: z.string().nullable().openapi({ description: "Cursor for the next page; pass it as `after`. Null on the last page.", example: "eyJpZCI6IjEyMyJ9" }),
    has_next: z.boolean().openapi({ description: "Whether another page follows.", example: false }),
  })
  .openapi("Paging");

/** The `{id}` path parameter of a resource: a UUID (anything else is a 422 naming `id`). */
export function idPathParam(description: string, example: string) {
  return z.object({ id: z.uuid().openapi({ param: { name: "id", in: "path" }, description, example }) });
}

export function pagedEnvelope<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item), paging: Paging, request_id: RequestId });
}

const MailDetail = z
  .object({
    path: z.string().openapi({ description: "Dotted path of the offending field.", example: "blocks.0.block_id" }),
    message: z.string().openapi({ description: "What is wrong with it.", example: "Invalid UUID" }),
  })
  .openapi("ErrorDetail");

const AdsDetail = z
  .object({
    field: z.string().openapi({ description: "Dotted path of the offending field.", example: "targeting.age_min" }),
    issue: z.string().openapi({ description: "What is wrong with it.", example: "Must be between 13 and 65" }),
  })
  .openapi("ErrorFieldIssue");

const MailMissing = z
  .object({
    missing: z.array(z.string()).openapi({ description: "The items an administrator must still complete.", example: ["broadcast_stream"] }),
  })
  .openapi({ description: "403 of an account whose sending is not set up." });

const MailSpamComplaint = z
  .object({
    reason: z
      .literal("spam_complaint")
      .openapi({ description: "The address reported a message as spam; Postmark never lets that be lifted.", example: "spam_complaint" }),
  })
  .openapi({ description: "Only POST /v1/suppressions/reactivate of a spam complaint, as the spec names it." });

/**
 * The mail spec's error body: `details` is an array of `{ path, message }` (empty when no field is to
 * blame). A cause (a conflict, a refused upload) comes as pairs: `{ path: "reason", message: "<reason>" }`
 * then what it concerns (e.g. `status`); only the reactivation of a spam complaint answers the object
 * `{ reason: "spam_complaint" }` the spec names (`MailConflictError`). The 403 of an account whose sending
 * is not set up carries `{ missing }` (`MailForbiddenError`).
 */
function mailErrorSchema(status: number) {
  if (status === 409) {
    const details = z.union([z.array(MailDetail), MailSpamComplaint]).openapi({
      description:
        '`[{path, message}]`: the entry with path `reason` holds the machine-readable cause (`idempotency_key_reused`, `idempotency_key_in_use`, `already_running`, `job_finished`, `template_in_use`, `asset_in_use`, …), the others what it concerns (e.g. `status`, `template_ids.0`). Reactivating a spam complaint answers `{ reason: "spam_complaint" }`.',
    });
    return errorObject("mail", details).openapi("MailConflictError");
  }
  if (status === 403) {
    const details = z
      .union([z.array(MailDetail), MailMissing])
      .openapi({ description: "`[{path, message}]`, or on a 403 of an account not set up an object with the `missing` items." });
    return errorObject("mail", details).openapi("MailForbiddenError");
  }
  const details = z.array(MailDetail).openapi({ description: "`[{path, message}]` naming each offending field; empty when no field is to blame." });
  return errorObject("mail", details).openapi("MailError");
}

function errorObject(_service: ServiceName, details: z.ZodType) {
  return z.object({
    error: z
      .object({
        code: z.enum(serviceErrorCodes).openapi({ description: "Machine-readable error code.", example: "validation_error" }),
        message: z.string().openapi({ description: "Human-readable explanation.", example: "The request has invalid fields." }),
        details,
        message_id: z.uuid().optional().openapi({
          description:
            "Set on a send whose provider outcome is unknown: read it with GET /v1/messages/{id} (`accepted`, or `failed` once Postmark is shown never to have received it; a `failed` one still turns `accepted` should Postmark show it late).",
          example: "0f8fad5b-d9cb-469f-a165-70867728950e",
        }),
      })
      .openapi({ description: "What went wrong." }),
    request_id: RequestId,
  });
}

const AdsMissing = z
  .object({ missing: z.array(z.string()).openapi({ description: "Missing onboarding items.", example: ["page_id"] }) })
  .openapi({ description: "Onboarding items still missing." });
const AdsLocked = z
  .object({ locked_fields: z.array(z.string()).openapi({ description: "Locked fields that were sent.", example: ["optimization_goal"] }) })
  .openapi({ description: "Fields set by the target configuration." });

/**
 * The ads spec's error body per status: 400/422 carry `[{field, issue}]`, `{missing}` (incomplete
 * onboarding) or `{locked_fields}` (`AdsValidationError`); 402 and 409 an object naming the state
 * (`account_state`, the plan's figures, `reason`) (`AdsStateError`); every other status `[]` (`AdsError`).
 * No details is `[]` on every status, as on the mail and admin APIs (a client never checks for null).
 */
function adsErrorSchema(status: number) {
  if (status === 400 || status === 422) {
    const details = z.union([z.array(AdsDetail), AdsMissing, AdsLocked]).openapi({
      description:
        "`[{field, issue}]` for invalid fields (a request whose path, query, header or body is not UTF-8 names where: `path`, the parameter, the header or the body's field, else `body`), `{missing}` for incomplete onboarding (also when the platform refused the customer's access token), `{locked_fields}` for locked fields; `[]` for malformed JSON.",
    });
    return errorObject("ads", details).openapi("AdsValidationError");
  }
  if (status === 402 || status === 409) {
    const details = z.union([z.record(z.string(), z.unknown()), z.array(AdsDetail).max(0)]).openapi({
      description:
        "The state in question: `account_state` (402 no write access), the plan's figures (402 `quota_exceeded`), `reason` and what it concerns (409); `[]` when there is nothing more to say.",
    });
    return errorObject("ads", details).openapi("AdsStateError");
  }
  return errorObject("ads", z.array(AdsDetail).max(0).openapi({ description: "Always `[]` for this status." })).openapi("AdsError");
}

/**
 * Built once per named schema: every operation's error responses share it (about 1,500 of them across the three
 * documents; building each anew cost a fifth of a second of every start).
 */
const errorSchemas = new Map<string, ReturnType<typeof mailErrorSchema>>();

function errorSchema(service: ServiceName, status: number) {
  const name = errorSchemaName(service, status);
  const known = errorSchemas.get(name);
  if (known) return known;
  const built = buildErrorSchema(service, status);
  errorSchemas.set(name, built);
  return built;
}

function buildErrorSchema(service: ServiceName, status: number) {
  if (service === "mail") return mailErrorSchema(status);
  if (service === "ads") return adsErrorSchema(status);
  const details = z
    .union([z.array(MailDetail), z.record(z.string(), z.unknown())])
    .openapi({ description: "`[{path, message}]` for field problems (empty when none); an object for conflicts and readiness problems." });
  return errorObject(service, details).openapi("AdminError");
}

const descriptions: Record<number, string> = {
  400: "Bad request: malformed JSON, wrong content type, missing required fields, unknown Service-Version; or text that is not UTF-8, which is refused, never replaced: a path segment or query parameter whose percent-encoding does not decode to UTF-8, a header the service reads (`Authorization`, `Idempotency-Key`, `Content-Type`, …) with bytes outside ASCII, or a JSON body with bytes that are no UTF-8 character (`details` names the field holding them, else `body`).",
  401: "Missing, invalid or revoked API key.",
  402: "Payment required: no active write access, or above the plan's included volume (`quota_exceeded`).",
  403: "The key's scope does not cover this operation, or access is blocked.",
  404: "The resource does not exist or belongs to another customer (also any path segment longer than 256 characters: no id is that long).",
  405: "Method not allowed on this path; see the `Allow` header.",
  409: "Conflict with the resource's state or with an idempotency key.",
  413: "The request body is larger than this operation's limit (see the API description); refused while it streams in, before authentication, and the connection is closed.",
  422: "Fields present but invalid; see `details`.",
  429: "Too many requests (per customer, or too many failed authentications from this client address) or a quota reached; wait `Retry-After` seconds.",
  500: "Error at the service or the provider; retry with backoff.",
  503: "Temporarily unavailable: the database cannot be reached (`service_unavailable`, e.g. during a failover) or is older than the code (`schema_behind`, a deploy whose migrations have not run yet); retry after `Retry-After` seconds.",
};

const examples: Record<number, (typeof serviceErrorCodes)[number]> = {
  400: "bad_request",
  401: "unauthorized",
  402: "payment_required",
  403: "forbidden",
  404: "not_found",
  405: "method_not_allowed",
  409: "conflict",
  413: "payload_too_large",
  422: "validation_error",
  429: "rate_limited",
  500: "internal_error",
  503: "service_unavailable",
};

export type ErrorStatus = 400 | 401 | 402 | 403 | 404 | 405 | 409 | 413 | 422 | 429 | 500 | 503;

/** The named error schema a service's answers of `status` use (what `errorResponses` registers), for responses added to the finished document. */
function errorSchemaName(service: ServiceName, status: number): string {
  if (service === "admin") return "AdminError";
  if (service === "mail") return status === 409 ? "MailConflictError" : status === 403 ? "MailForbiddenError" : "MailError";
  return status === 400 || status === 422 ? "AdsValidationError" : status === 402 || status === 409 ? "AdsStateError" : "AdsError";
}

/** A response object of the finished document (JSON Schema by reference), as `errorResponses` would write it. */
export function errorResponseJson(service: ServiceName, status: ErrorStatus) {
  return {
    description: descriptions[status] ?? "",
    content: {
      "application/json": {
        schema: { $ref: `#/components/schemas/${errorSchemaName(service, status)}` },
        example: {
          error: { code: examples[status], message: descriptions[status], details: [] },
          request_id: "5b0e3c4e-7c8d-4a0e-9d7e-0b6b8f1d2c3a",
        },
      },
    },
  };
}

/** One response object per status, sharing the service's named error schema. */
export function errorResponses(service: ServiceName, statuses: ErrorStatus[]) {
  // Wherever authentication can fail, failing too often answers 429 (failed authentications per address).
  const all = statuses.includes(401) && !statuses.includes(429) ? [...statuses, 429 as const] : statuses;
  return Object.fromEntries(
    all.map((status) => [
      status,
      {
        description: descriptions[status],
        ...(status === 429 || status === 503 ? { headers: { "Retry-After": headerRef("Retry-After") } } : {}),
        content: {
          "application/json": {
            schema: errorSchema(service, status),
            example: {
              error: { code: examples[status], message: descriptions[status], details: [] },
              request_id: "5b0e3c4e-7c8d-4a0e-9d7e-0b6b8f1d2c3a",
            },
          },
        },
      },
    ]),
  ) as unknown as Record<ErrorStatus, { description: string; content: { "application/json": { schema: ReturnType<typeof mailErrorSchema> } } }>;
}

type HeaderObject = { description: string; required?: boolean; schema: Record<string, unknown> };

/**
 * The headers of the API conventions, referenced from the operations as `#/components/headers/<name>`
 * and `#/components/parameters/<name>`; `buildDocument` adds those a document uses.
 */
export const RESPONSE_HEADERS: Record<string, HeaderObject> = {
  "X-Request-Id": {
    description: "Id of this request: the caller's `X-Request-Id` when valid, otherwise a generated UUID. Also `request_id` in the body.",
    required: true,
    schema: { type: "string", example: "5b0e3c4e-7c8d-4a0e-9d7e-0b6b8f1d2c3a" },
  },
  "Service-Version": { description: "Version of the API that answered.", required: true, schema: { type: "string", example: "v1" } },
  "X-RateLimit-Limit": {
    description: "Requests allowed per window for this customer (every authenticated request; omitted when the limiter is unreachable).",
    schema: { type: "integer", example: 1000 },
  },
  "X-RateLimit-Remaining": { description: "Requests left in the current window.", schema: { type: "integer", example: 998 } },
  "X-RateLimit-Reset": { description: "Seconds until the window resets.", schema: { type: "integer", example: 42 } },
  "RateLimit-Policy": {
    description: "IETF form of the policy: quota `q` per window `w` seconds.",
    schema: { type: "string", example: '"per-customer";q=1000;w=60' },
  },
  RateLimit: { description: "IETF form of the state: remaining `r`, seconds to reset `t`.", schema: { type: "string", example: '"per-customer";r=998;t=42' } },
  "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "integer", example: 30 } },
  "Idempotent-Replayed": {
    description: "`true` when this is the stored first response to the same `Idempotency-Key`, replayed without doing the work again.",
    schema: { type: "string", enum: ["true"], example: "true" },
  },
};

export const HEADER_PARAMETERS: Record<string, { name: string; in: "header"; required: false; description: string; schema: Record<string, unknown> }> = {
  ServiceVersion: {
    name: "Service-Version",
    in: "header",
    required: false,
    description: "Pins the API version; any value but `v1` answers 400.",
    schema: { type: "string", example: "v1" },
  },
  RequestId: {
    name: "X-Request-Id",
    in: "header",
    required: false,
    description:
      "Your id for this request (1–128 characters of `A-Za-z0-9._:-`), echoed in the `X-Request-Id` header and `request_id`; otherwise a UUID is generated.",
    schema: { type: "string", pattern: "^[A-Za-z0-9._:-]{1,128}$", example: "portal-7f3a9c" },
  },
  IdempotencyKey: {
    name: "Idempotency-Key",
    in: "header",
    required: false,
    description:
      "Makes the write safe to retry (a UUID is recommended; 1–255 visible ASCII characters, quoted or bare). The first response is kept 24 h per customer, method and path and replayed with `Idempotent-Replayed: true`; another body under the same key answers 409 `idempotency_key_reused`, a key whose first request still runs 409 `idempotency_key_in_use` with `Retry-After`.",
    schema: { type: "string", minLength: 1, maxLength: 255, example: "7d0a1f5e-3b2c-4d8e-9f10-2a3b4c5d6e7f" },
  },
};

export const headerRef = (name: keyof typeof RESPONSE_HEADERS & string) => ({ $ref: `#/components/headers/${name}` });
export const parameterRef = (name: keyof typeof HEADER_PARAMETERS & string) => ({ $ref: `#/components/parameters/${name}` });
