import { z } from "@hono/zod-openapi";
import { idPathParam } from "../core/openapi";

/** Pieces every mail route group uses; a resource's own schemas live in its folder's `schema.ts`. */

export const uuidExample = "7b1c9a4e-2f0d-4e8b-9c3a-5d6e7f8a9b0c";

export const IdParam = idPathParam("Resource id (UUID).", uuidExample);

/** A count in a response. */
export const count = (description: string, example: number) => z.number().int().openapi({ description, example });

/** An ISO 8601 time in a response, null until it happened. */
export const timestamp = (description: string, example: string | null = null) => z.string().nullable().openapi({ description, example });
