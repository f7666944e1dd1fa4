import { z } from "@hono/zod-openapi";

/* The bearer credentials' views and inputs (./keys.ts): a customer's API key and an operator's token. */

const operatorId = "8d3c1f0e-2b4a-4e6f-9a1b-7c5d3e2f1a09";
const tokenId = "b1e2c3d4-5f6a-4b7c-8d9e-0f1a2b3c4d5e";

export const ApiKey = z
  .object({
    id: z.uuid().openapi({ description: "Key id (for revocation).", example: "6a2f41a3-c54c-4c4a-8e8d-3f1b0c7d9e21" }),
    customer_id: z.uuid().openapi({ description: "Owning customer.", example: "3f0e8a52-6f1e-4c1d-9a43-0d2f1b7c5e11" }),
    prefix: z.string().openapi({ description: "Visible start of the key.", example: "mk_live_3fA9" }),
    service: z.enum(["mail", "ads"]).openapi({ description: "Service the key is valid for.", example: "mail" }),
    scope: z.enum(["full", "reporting"]).openapi({ description: "`full` reads, writes and sends; `reporting` only reads.", example: "full" }),
    label: z.string().nullable().openapi({ description: "The operator's name for the key, null when none was given.", example: "shop backend" }),
    created_at: z.string().openapi({ description: "ISO 8601 creation time.", example: "2026-01-15T10:00:00.000Z" }),
    revoked_at: z.string().nullable().openapi({ description: "ISO 8601 revocation time, null while valid.", example: null }),
    last_used_at: z.string().nullable().openapi({
      description:
        "ISO 8601 time of the last authenticated request, to the minute (keys are cached briefly, so up to the cache's lifetime later); null when never used.",
      example: "2026-01-16T08:31:00.000Z",
    }),
  })
  .openapi("ApiKey");

export const IssuedApiKey = ApiKey.extend({
  key: z.string().openapi({ description: "The key itself. Shown only in this response; store it now.", example: "mk_live_…" }),
}).openapi("IssuedApiKey");

export const CreateApiKey = z
  .object({
    service: z.enum(["mail", "ads"]).openapi({ description: "Service the key is valid for.", example: "mail" }),
    scope: z.enum(["full", "reporting"]).openapi({ description: "Scope of the key.", example: "full" }),
    label: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .optional()
      .openapi({ description: "A name for the key, 1–100 characters, so operators can tell keys apart.", example: "shop backend" }),
  })
  .openapi("CreateApiKey");

export const OperatorToken = z
  .object({
    id: z.uuid().openapi({ description: "Token id (for revocation).", example: tokenId }),
    operator_id: z.uuid().openapi({ description: "The operator it acts for, with their current role.", example: operatorId }),
    label: z.string().openapi({ description: "What the token is for.", example: "nightly export" }),
    prefix: z.string().openapi({ description: "Visible start of the token.", example: "op_live_3fA9" }),
    created_at: z.string().openapi({ description: "ISO 8601 creation time.", example: "2026-01-15T10:00:00.000Z" }),
    last_used_at: z.string().nullable().openapi({ description: "Last request made with it (to the minute); null if never used.", example: null }),
    revoked_at: z.string().nullable().openapi({ description: "ISO 8601 revocation time; null while valid.", example: null }),
  })
  .openapi("OperatorToken");

export const IssuedOperatorToken = OperatorToken.extend({
  token: z.string().openapi({ description: "The token itself (`Authorization: Bearer …`). Shown only in this response; store it now.", example: "op_live_…" }),
}).openapi("IssuedOperatorToken");

export const CreateOperatorToken = z
  .object({ label: z.string().trim().min(1).max(100).openapi({ description: "What the token is for, 1–100 characters.", example: "nightly export" }) })
  .strict()
  .openapi("CreateOperatorToken");
