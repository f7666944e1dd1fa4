import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../core/context";

export type AdminRouter = OpenAPIHono<AppEnv>;

/** Every admin route takes the operator token (checked once in `createAdminApp`). */
export const security = [{ adminToken: [] }];
