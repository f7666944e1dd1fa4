import { json } from "../../../core/json";
import { errorResponses, pagedEnvelope } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import { deliveryListInput, listWebhookDeliveries } from "../../../core/webhooks/deliveries";
import { DELIVERY_LOG_RULES } from "../../../core/webhooks/schema";
import type { AdsWebhookEvent } from "../../../db/schema";
import type { AdsDeps } from "../../deps";
import { ADS_WEBHOOKS } from "../../webhooks/events";
import { idParam, openapiWithAlias, type AdsRouter } from "../shared";
import { AdsDeliveryListQuery, AdsWebhookDelivery } from "./schema";

export function registerListWebhookDeliveries(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "read", {
    method: "get",
    path: "/v1/webhooks/{id}/deliveries",
    operationId: "listAdsWebhookDeliveries",
    tags: ["Webhooks"],
    summary: "List a webhook's deliveries",
    description: `The delivery log of one of this account's registrations (another account's id answers 404). ${DELIVERY_LOG_RULES} Unlike the other ads lists (\`limit\`/\`offset\`), this log pages with a cursor, \`{ data, paging: { after, has_next } }\`: new deliveries arrive at its head while you page.`,
    request: { params: idParam("webhook registration"), query: AdsDeliveryListQuery },
    responses: {
      200: { description: "A page of deliveries.", content: json(pagedEnvelope(AdsWebhookDelivery)) },
      ...errorResponses("ads", [400, 401, 402, 404, 422, 429, 500]),
    },
  });
  openapiWithAlias(router, route, async (c) => {
    const query = c.req.valid("query");
    const page = await listWebhookDeliveries<AdsWebhookEvent>(
      ADS_WEBHOOKS,
      deps.db,
      c.get("principal").customerId,
      c.req.valid("param").id,
      deliveryListInput(query),
    );
    return c.json({ data: page.items, paging: page.paging, request_id: c.get("requestId") }, 200);
  });
}
