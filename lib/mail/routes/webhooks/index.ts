import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import type { MailDeps } from "../../deps";
import { registerCreateWebhook } from "./create";
import { registerDeleteWebhook } from "./delete";
import { registerListWebhooks } from "./list";

/** Outgoing webhook endpoints of the account. */
export function registerWebhookRoutes(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  registerCreateWebhook(router, deps);
  registerListWebhooks(router, deps);
  registerDeleteWebhook(router, deps);
}
