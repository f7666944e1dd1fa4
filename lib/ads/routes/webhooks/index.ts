import type { AdsDeps } from "../../deps";
import type { AdsRouter } from "../shared";
import { registerCreateWebhook } from "./create";
import { registerDeleteWebhook } from "./delete";
import { registerEnableWebhook } from "./enable";
import { registerListWebhooks } from "./list";
import { registerListWebhookDeliveries } from "./list-deliveries";
import { registerRedeliverWebhookDelivery } from "./redeliver";

export function registerWebhookRoutes(router: AdsRouter, deps: AdsDeps): void {
  registerCreateWebhook(router, deps);
  registerListWebhooks(router, deps);
  registerDeleteWebhook(router, deps);
  registerEnableWebhook(router, deps);
  registerListWebhookDeliveries(router, deps);
  registerRedeliverWebhookDelivery(router, deps);
}
