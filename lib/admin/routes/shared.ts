import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../core/context";

export type AdminRouter = OpenAPIHono<AppEnv>;
