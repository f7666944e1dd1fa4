import { z } from "@hono/zod-openapi";
import { operatorRoles } from "../../db/schema";

const operatorId = "8d3c1f0e-2b4a-4e6f-9a1b-7c5d3e2f1a09";
const tokenId = "b1e2c3d4-5f6a-4b7c-8d9e-0f1a2b3c4d5e";

const Role = z.enum(operatorRoles).openapi({
  description: "`owner`: everything, manages operators; `admin`: everything but operators; `support`: reads, plus the writes marked for support.",
  example: "support",
});

export const Operator = z
  .object({
    id: z.uuid().openapi({ description: "Operator id.", example: operatorId }),
    email: z.string().openapi({ description: "Sign-in e-mail, lower-case.", example: "anna@operator.example" }),
    role: Role,
    created_at: z.string().openapi({ description: "ISO 8601 creation time.", example: "2026-01-15T10:00:00.000Z" }),
    disabled_at: z
      .string()
      .nullable()
      .openapi({ description: "When the account was disabled (its sessions and tokens ended then); null while enabled.", example: null }),
  })
  .openapi("Operator");

const Password = z
  .string()
  .min(12)
  .max(200)
  .openapi({ description: "12–200 characters; stored only as an argon2id hash.", example: "correct horse battery staple" });

export const CreateOperator = z
  .object({
    email: z.email().max(254).openapi({ description: "Sign-in e-mail (unique, case-insensitive).", example: "anna@operator.example" }),
    role: Role,
    password: Password,
  })
  .strict()
  .openapi("CreateOperator");

export const UpdateOperator = z
  .object({
    role: Role.optional(),
    disabled: z.boolean().optional().openapi({
      description:
        "`true` disables the account: its console sessions end and its API tokens are revoked at once. `false` enables it again (tokens stay revoked).",
      example: true,
    }),
    password: Password.optional(),
  })
  .strict()
  .openapi("UpdateOperator");

export const OperatorIdParam = z.object({ id: z.uuid().openapi({ param: { name: "id", in: "path" }, description: "Operator id.", example: operatorId }) });

export const OperatorTokenParams = OperatorIdParam.extend({
  token_id: z.uuid().openapi({ param: { name: "token_id", in: "path" }, description: "Token id.", example: tokenId }),
});

export const tags = ["Operators"];
