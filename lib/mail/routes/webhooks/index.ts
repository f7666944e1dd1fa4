import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import type { MailDeps } from "../../deps";
import { registerCreateWebhook } from "./create";
import { registerDeleteWebhook } from "./delete";
import { registerEnableWebhook } from "./enable";
import { registerListWebhooks } from "./list";
import { registerListWebhookDeliveries } from "./list-deliveries";
import { registerRedeliverWebhookDelivery } from "./redeliver";

/** Outgoing webhook endpoints of the account and their delivery logs. */
export function registerWebhookRoutes(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  registerCreateWebhook(router, deps);
  registerListWebhooks(router, deps);
  registerDeleteWebhook(router, deps);
  registerEnableWebhook(router, deps);
  registerListWebhookDeliveries(router, deps);
  registerRedeliverWebhookDelivery(router, deps);
}
