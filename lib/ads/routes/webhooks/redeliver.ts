import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import { redeliverWebhookDelivery } from "../../../core/webhooks/deliveries";
import { DeliveryParams, REDELIVER_RULES } from "../../../core/webhooks/schema";
import type { AdsWebhookEvent } from "../../../db/schema";
import type { AdsDeps } from "../../deps";
import { ADS_WEBHOOKS } from "../../webhooks/events";
import { openapiWithAlias, type AdsRouter } from "../shared";
import { AdsWebhookDelivery } from "./schema";

export function registerRedeliverWebhookDelivery(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "write", {
    method: "post",
    path: "/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver",
    operationId: "redeliverAdsWebhookDelivery",
    tags: ["Webhooks"],
    summary: "Redeliver a delivery",
    description: `${REDELIVER_RULES} Another account's registration or delivery answers 404.`,
    request: { params: DeliveryParams },
    responses: {
      202: { description: "Queued; the delivery as it stands.", content: json(envelope(AdsWebhookDelivery)) },
      ...errorResponses("ads", [401, 402, 403, 404, 409, 422, 429, 500]),
    },
  });
  openapiWithAlias(router, route, async (c) => {
    const { id, delivery_id } = c.req.valid("param");
    const delivery = await redeliverWebhookDelivery<AdsWebhookEvent>(ADS_WEBHOOKS, deps, c.get("principal").customerId, id, delivery_id);
    return c.json({ data: delivery, request_id: c.get("requestId") }, 202);
  });
}
