import { adminRoute } from "../../access";
import type { CoreDeps } from "../../../core/context";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { sendTestWebhookEvent } from "../../../core/webhooks/deliveries";
import { TEST_EVENT_RULES } from "../../../core/webhooks/schema";
import { requireCustomer } from "../../customers";
import type { AdminRouter } from "../shared";
import { tags, WebhookParams, type WebhookService } from "../../webhooks/schema";

/** Support may send one, as it may redeliver: a test changes nothing in the account and helps a customer debug. */
export function registerSendCustomerWebhookTestEvent(router: AdminRouter, deps: CoreDeps, kind: WebhookService): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "post",
        path: `/v1/customers/{id}/${kind.service}/webhooks/{webhookId}/test`,
        operationId: `sendCustomer${kind.label}WebhookTestEvent`,
        tags,
        summary: `Send a test event to a ${kind.service} webhook endpoint`,
        description: `As \`POST /${kind.service}/v1/webhooks/{id}/test\` for that customer. ${TEST_EVENT_RULES}`,
        request: { params: WebhookParams },
        responses: {
          202: { description: "Queued; the test delivery as it stands.", content: json(envelope(kind.delivery)) },
          ...errorResponses("admin", [401, 404, 409, 422]),
        },
      },
      { target: ["customer", "webhook"], supportMayWrite: true },
    ),
    async (c) => {
      const { id, webhookId } = c.req.valid("param");
      await requireCustomer(deps.db, id);
      return c.json({ data: await sendTestWebhookEvent(kind.store, kind.service, deps, id, webhookId), request_id: c.get("requestId") }, 202);
    },
  );
}
