import { z } from "@hono/zod-openapi";

/** Pieces the operator's ads schemas share; each resource's schemas live in its folder's `schema.ts`. */

export const text = (description: string, example: string) => z.string().trim().min(1).max(200).openapi({ description, example });
