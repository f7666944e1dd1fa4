import type { AdsDeps } from "../../deps";
import type { AdsRouter } from "../shared";
import { registerCreateWebhook } from "./create";
import { registerDeleteWebhook } from "./delete";
import { registerListWebhooks } from "./list";

export function registerWebhookRoutes(router: AdsRouter, deps: AdsDeps): void {
  registerCreateWebhook(router, deps);
  registerListWebhooks(router, deps);
  registerDeleteWebhook(router, deps);
}
