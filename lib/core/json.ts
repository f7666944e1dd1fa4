import type { z } from "@hono/zod-openapi";

/** The `content` of a JSON request body or response in a route's OpenAPI definition. */
export const json = <T extends z.ZodType>(schema: T) => ({ "application/json": { schema } });
