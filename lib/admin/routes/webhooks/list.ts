import { z } from "@hono/zod-openapi";
import { adminRoute } from "../../access";
import type { CoreDeps } from "../../../core/context";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { listWebhooks } from "../../../core/webhooks/registrations";
import { requireCustomer } from "../../customers";
import type { AdminRouter } from "../shared";
import { CustomerIdParam } from "../../customers/schema";
import { tags, type WebhookEvent, type WebhookService } from "../../webhooks/schema";

export function registerListCustomerWebhooks(router: AdminRouter, deps: CoreDeps, kind: WebhookService): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "get",
        path: `/v1/customers/{id}/${kind.service}/webhooks`,
        operationId: `listCustomer${kind.label}Webhooks`,
        tags,
        summary: `List a customer's ${kind.service} webhook endpoints`,
        description: `As \`GET /${kind.service}/v1/webhooks\` for that customer, every endpoint at once (at most 10), oldest first: state (\`active\`, or \`inactive\` after 24 hours of failed deliveries, with when and why), the last successful delivery and the failures since. Never a signing secret.`,
        request: { params: CustomerIdParam },
        responses: { 200: { description: "The endpoints.", content: json(envelope(z.array(kind.endpoint))) }, ...errorResponses("admin", [401, 404, 422]) },
      },
      { target: ["customer"] },
    ),
    async (c) => {
      const { id } = c.req.valid("param");
      await requireCustomer(deps.db, id);
      return c.json({ data: await listWebhooks<WebhookEvent>(kind.store, deps.db, id), request_id: c.get("requestId") }, 200);
    },
  );
}
