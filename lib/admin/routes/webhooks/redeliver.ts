import { adminRoute } from "../../access";
import type { CoreDeps } from "../../../core/context";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { redeliverWebhookDelivery } from "../../../core/webhooks/deliveries";
import { REDELIVER_RULES } from "../../../core/webhooks/schema";
import { requireCustomer } from "../../customers";
import type { AdminRouter } from "../shared";
import { DeliveryParams, tags, type WebhookEvent, type WebhookService } from "../../webhooks/schema";

export function registerRedeliverCustomerWebhookDelivery(router: AdminRouter, deps: CoreDeps, kind: WebhookService): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "post",
        path: `/v1/customers/{id}/${kind.service}/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver`,
        operationId: `redeliverCustomer${kind.label}WebhookDelivery`,
        tags,
        summary: `Redeliver a ${kind.service} webhook delivery`,
        description: `As \`POST /${kind.service}/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver\` for that customer. ${REDELIVER_RULES}`,
        request: { params: DeliveryParams },
        responses: {
          202: { description: "Queued; the delivery as it stands.", content: json(envelope(kind.delivery)) },
          ...errorResponses("admin", [401, 404, 409, 422]),
        },
      },
      { target: ["customer", "webhook", "delivery"], supportMayWrite: true },
    ),
    async (c) => {
      const { id, webhookId, deliveryId } = c.req.valid("param");
      await requireCustomer(deps.db, id);
      return c.json({ data: await redeliverWebhookDelivery<WebhookEvent>(kind.store, deps, id, webhookId, deliveryId), request_id: c.get("requestId") }, 202);
    },
  );
}
