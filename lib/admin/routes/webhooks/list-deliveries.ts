import { adminRoute } from "../../access";
import type { CoreDeps } from "../../../core/context";
import { json } from "../../../core/json";
import { errorResponses, pagedEnvelope } from "../../../core/openapi";
import { deliveryListInput, listWebhookDeliveries } from "../../../core/webhooks/deliveries";
import { DELIVERY_LOG_RULES } from "../../../core/webhooks/schema";
import { requireCustomer } from "../../customers";
import type { AdminRouter } from "../shared";
import { tags, WebhookParams, type WebhookEvent, type WebhookService } from "../../webhooks/schema";

export function registerListCustomerWebhookDeliveries(router: AdminRouter, deps: CoreDeps, kind: WebhookService): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "get",
        path: `/v1/customers/{id}/${kind.service}/webhooks/{webhookId}/deliveries`,
        operationId: `listCustomer${kind.label}WebhookDeliveries`,
        tags,
        summary: `List a ${kind.service} webhook endpoint's deliveries`,
        description: `As \`GET /${kind.service}/v1/webhooks/{id}/deliveries\` for that customer; an endpoint of another customer answers 404. ${DELIVERY_LOG_RULES}`,
        request: { params: WebhookParams, query: kind.query },
        responses: {
          200: { description: "A page of deliveries.", content: json(pagedEnvelope(kind.delivery)) },
          ...errorResponses("admin", [400, 401, 404, 422]),
        },
      },
      { target: ["customer", "webhook"] },
    ),
    async (c) => {
      const { id, webhookId } = c.req.valid("param");
      const query = c.req.valid("query");
      await requireCustomer(deps.db, id);
      const page = await listWebhookDeliveries<WebhookEvent>(kind.store, deps.db, id, webhookId, deliveryListInput(query));
      return c.json({ data: page.items, paging: page.paging, request_id: c.get("requestId") }, 200);
    },
  );
}
