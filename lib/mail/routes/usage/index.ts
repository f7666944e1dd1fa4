import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import type { MailDeps } from "../../deps";
import { registerGetUsage } from "./get";

/** What the account sent this month and may still send. */
export function registerUsageRoutes(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  registerGetUsage(router, deps);
}
