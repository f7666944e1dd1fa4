import { registerWebhookDeliveryRoutes } from "../../../core/webhooks/delivery-routes";
import type { AdsDeps } from "../../deps";
import { ADS_WEBHOOKS } from "../../webhooks/events";
import { idParam, openapiWithAlias, type AdsRouter } from "../shared";
import { registerCreateWebhook } from "./create";
import { registerDeleteWebhook } from "./delete";
import { registerEnableWebhook } from "./enable";
import { registerListWebhooks } from "./list";
import { AdsDeliveryListQuery, AdsWebhookDelivery } from "../../webhooks/schema";

export function registerWebhookRoutes(router: AdsRouter, deps: AdsDeps): void {
  registerCreateWebhook(router, deps);
  registerListWebhooks(router, deps);
  registerDeleteWebhook(router, deps);
  registerEnableWebhook(router, deps);
  registerWebhookDeliveryRoutes(router, deps, {
    service: "ads",
    store: ADS_WEBHOOKS,
    operationIds: { list: "listAdsWebhookDeliveries", redeliver: "redeliverAdsWebhookDelivery", test: "sendAdsWebhookTestEvent" },
    noun: "registration",
    listSummary: "List a webhook's deliveries",
    listNote:
      "Unlike the other ads lists (`limit`/`offset`), this log pages with a cursor, `{ data, paging: { after, has_next } }`: new deliveries arrive at its head while you page.",
    params: idParam("webhook registration"),
    query: AdsDeliveryListQuery,
    delivery: AdsWebhookDelivery,
    errors: { list: [400, 401, 402, 404, 422, 429, 500], redeliver: [401, 402, 403, 404, 409, 422, 429, 500] },
    register: openapiWithAlias,
  });
}
