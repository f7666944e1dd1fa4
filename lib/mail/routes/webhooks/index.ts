import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import { registerWebhookDeliveryRoutes } from "../../../core/webhooks/delivery-routes";
import type { MailDeps } from "../../deps";
import { MAIL_WEBHOOKS } from "../../webhooks/emit";
import { IdParam } from "../../fields";
import { registerCreateWebhook } from "./create";
import { registerDeleteWebhook } from "./delete";
import { registerEnableWebhook } from "./enable";
import { registerListWebhooks } from "./list";
import { DeliveryListQuery, WebhookDelivery } from "../../webhooks/schema";

/** Outgoing webhook endpoints of the account and their delivery logs. */
export function registerWebhookRoutes(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  registerCreateWebhook(router, deps);
  registerListWebhooks(router, deps);
  registerDeleteWebhook(router, deps);
  registerEnableWebhook(router, deps);
  registerWebhookDeliveryRoutes(router, deps, {
    service: "mail",
    store: MAIL_WEBHOOKS,
    operationIds: { list: "listWebhookDeliveries", redeliver: "redeliverWebhookDelivery", test: "sendWebhookTestEvent" },
    noun: "endpoint",
    listSummary: "List an endpoint's deliveries",
    params: IdParam,
    query: DeliveryListQuery,
    delivery: WebhookDelivery,
    errors: { list: [400, 401, 404, 422, 429, 500], redeliver: [401, 403, 404, 409, 422, 429, 500] },
  });
}
