import { z } from "@hono/zod-openapi";
import { auditActorTypes } from "../../db/schema";

export const operatorIdExample = "8d3c1f0e-2b4a-4e6f-9a1b-7c5d3e2f1a09";

export const AuditEntry = z
  .object({
    id: z.uuid().openapi({ description: "Entry id.", example: "0b1c2d3e-4f5a-4b6c-9d7e-8f9a0b1c2d3e" }),
    at: z.string().openapi({ description: "ISO 8601 time of the request.", example: "2026-03-01T10:00:00.000Z" }),
    actor: z
      .object({
        type: z.enum(auditActorTypes).openapi({
          description: "`operator` (console session), `token` (an operator's API token), `bootstrap`, `break_glass`, `cli`, or `anonymous` (a failed sign-in).",
          example: "operator",
        }),
        operator_id: z.uuid().nullable().openapi({ description: "The operator, if the credential has one.", example: operatorIdExample }),
        email: z
          .string()
          .nullable()
          .openapi({ description: "The operator's e-mail (as it is now), if the credential has an operator.", example: "ops@example.com" }),
        token_id: z.uuid().nullable().openapi({ description: "The API token used, if any.", example: null }),
      })
      .openapi({ description: "Who made the request." }),
    operation_id: z
      .string()
      .openapi({ description: "The admin document's operationId, or `signIn` / `signInFailed` / `signOut` for the console.", example: "updateCustomer" }),
    method: z.string().openapi({ description: "HTTP method.", example: "PATCH" }),
    path: z.string().openapi({ description: "Request path under the admin API.", example: "/v1/customers/3f0e8a52-6f1e-4c1d-9a43-0d2f1b7c5e11" }),
    status: z.int().openapi({ description: "The HTTP status answered (a refused write is recorded with its 4xx).", example: 200 }),
    customer_id: z.uuid().nullable().openapi({ description: "The customer acted on, if any.", example: "3f0e8a52-6f1e-4c1d-9a43-0d2f1b7c5e11" }),
    customer_name: z
      .string()
      .nullable()
      .openapi({ description: "The customer's name (as it is now); null without a customer or once it was deleted.", example: "Acme GmbH" }),
    target: z.record(z.string(), z.string()).openapi({
      description: "The ids the operation acted on, named by resource (`customer`, `key`, `template`, …; a create adds the new id).",
      example: { customer: "3f0e8a52-6f1e-4c1d-9a43-0d2f1b7c5e11" },
    }),
    request_id: z.string().openapi({ description: "The request's `X-Request-Id`.", example: "5a0d1f5e-1b7e-4c55-9a8e-2f7a4c6b9d10" }),
    change: z
      .record(z.string(), z.unknown())
      .nullable()
      .openapi({
        description:
          'Writes: `request` (the body), and for PUT/PATCH of a readable resource `before`/`after` with only what differed; every secret (tokens, passwords, keys, credentials in URLs) reads "changed". Null for reads and sign-ins.',
        example: { request: { mail: { sending_blocked: true } }, before: { mail: { sending_blocked: false } }, after: { mail: { sending_blocked: true } } },
      }),
    address: z.string().nullable().openapi({ description: "The client address.", example: "203.0.113.7" }),
    reason: z.string().nullable().openapi({
      description:
        "A refusal's reason: `unknown_token`, `revoked_token`, `disabled_operator`, `retired_admin_token`, `auth_throttled`, `sign_in_backoff`, `wrong_password`, `wrong_token`, `csrf_token`, `cross_origin`, `role_required`, `reauthentication_required`, `password_sign_in_off`, `no_attempt`; null for entries that are not refusals.",
      example: null,
    }),
    token_prefix: z.string().nullable().openapi({ description: "A refused credential's visible start (never the credential).", example: null }),
    count: z.int().openapi({ description: "How many identical refusals within one minute this entry stands for (1 for every other entry).", example: 1 }),
  })
  .openapi("AuditEntry");
