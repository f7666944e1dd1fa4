import type { z } from "@hono/zod-openapi";

/** The `content` of an OpenAPI request body or response carrying `schema` as JSON. */
export const json = <T extends z.ZodType>(schema: T) => ({ "application/json": { schema } });
