import { adminRoute } from "../../access";
import type { CoreDeps } from "../../../core/context";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { enableWebhook } from "../../../core/webhooks/deliveries";
import { ENABLE_RULES } from "../../../core/webhooks/schema";
import { requireCustomer } from "../../customers";
import type { AdminRouter } from "../shared";
import { tags, WebhookParams, type WebhookEvent, type WebhookService } from "../../webhooks/schema";

export function registerEnableCustomerWebhook(router: AdminRouter, deps: CoreDeps, kind: WebhookService): void {
  router.openapi(
    adminRoute(
      deps,
      "admin",
      {
        method: "post",
        path: `/v1/customers/{id}/${kind.service}/webhooks/{webhookId}/enable`,
        operationId: `enableCustomer${kind.label}Webhook`,
        tags,
        summary: `Re-enable a ${kind.service} webhook endpoint`,
        description: `As \`POST /${kind.service}/v1/webhooks/{id}/enable\` for that customer. ${ENABLE_RULES}`,
        request: { params: WebhookParams },
        responses: { 200: { description: "The endpoint, active.", content: json(envelope(kind.endpoint)) }, ...errorResponses("admin", [401, 404, 422]) },
      },
      { target: ["customer", "webhook"] },
    ),
    async (c) => {
      const { id, webhookId } = c.req.valid("param");
      await requireCustomer(deps.db, id);
      return c.json({ data: await enableWebhook<WebhookEvent>(kind.store, deps.db, id, webhookId), request_id: c.get("requestId") }, 200);
    },
  );
}
