import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../core/context";
import { ConflictError } from "../../core/errors";
import { operatorRoles } from "../../db/schema";

const sessionId = "5b6c7d8e-9f0a-4b1c-8d2e-3f4a5b6c7d8e";

export const CurrentOperator = z
  .object({
    actor: z.enum(["operator", "token", "bootstrap", "break_glass", "cli"]).openapi({
      description: "How this request authenticated: a console session, an operator's API token, the bootstrap or break-glass token, or the admin CLI.",
      example: "operator",
    }),
    role: z.enum(operatorRoles).openapi({ description: "The role this request acts with.", example: "owner" }),
    operator_id: z.uuid().nullable().openapi({
      description: "The operator account; null for the bootstrap, break-glass and CLI credentials.",
      example: "8d3c1f0e-2b4a-4e6f-9a1b-7c5d3e2f1a09",
    }),
    email: z.string().nullable().openapi({ description: "The operator's e-mail; null without an account.", example: "anna@operator.example" }),
    token_id: z.uuid().nullable().openapi({ description: "The API token used, if any.", example: null }),
    session_id: z.uuid().nullable().openapi({ description: "The console session used, if any.", example: sessionId }),
  })
  .openapi("CurrentOperator");

export const OperatorSession = z
  .object({
    id: z.uuid().openapi({ description: "Session id.", example: sessionId }),
    created_at: z.string().openapi({ description: "Sign-in time.", example: "2026-01-15T10:00:00.000Z" }),
    expires_at: z.string().openapi({ description: "When it ends by itself (8 hours after sign-in).", example: "2026-01-15T18:00:00.000Z" }),
    user_agent: z.string().nullable().openapi({ description: "The browser's User-Agent at sign-in (first 300 characters).", example: "Mozilla/5.0 …" }),
    address: z.string().nullable().openapi({ description: "The client address at sign-in.", example: "203.0.113.7" }),
    current: z.boolean().openapi({ description: "Whether this request came through this session.", example: true }),
  })
  .openapi("OperatorSession");

export const SessionIdParam = z.object({
  session_id: z.uuid().openapi({ param: { name: "session_id", in: "path" }, description: "Session id.", example: sessionId }),
});

export const TokenIdParam = z.object({
  token_id: z.uuid().openapi({ param: { name: "token_id", in: "path" }, description: "Token id.", example: "b1e2c3d4-5f6a-4b7c-8d9e-0f1a2b3c4d5e" }),
});

export const tags = ["Current operator"];

/** The operator account behind this request; the bootstrap, break-glass and CLI credentials have none (409). */
export function ownOperatorId(c: Context<AppEnv>): string {
  const id = c.get("operator").operatorId;
  if (!id) throw new ConflictError("This credential belongs to no operator account (bootstrap, break-glass or CLI).", { reason: "no_operator_account" });
  return id;
}
