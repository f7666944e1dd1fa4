import { z } from "@hono/zod-openapi";

/** Pieces the operator's ads schemas share; each resource's schemas live in its folder's `schema.ts`. */

export const graphId = (description: string, example: string) =>
  z
    .string()
    .regex(/^\d{1,30}$/, "Must be a numeric platform id.")
    .openapi({ description, example });
export const text = (description: string, example: string) => z.string().trim().min(1).max(200).openapi({ description, example });
