import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import { json } from "../../../core/json";
import { errorResponses, pagedEnvelope } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import { deliveryListInput, listWebhookDeliveries } from "../../../core/webhooks/deliveries";
import { DELIVERY_LOG_RULES } from "../../../core/webhooks/schema";
import type { MailWebhookEvent } from "../../../db/schema";
import type { MailDeps } from "../../deps";
import { MAIL_WEBHOOKS } from "../../webhooks/emit";
import { IdParam } from "../shared";
import { DeliveryListQuery, WebhookDelivery } from "./schema";

export function registerListWebhookDeliveries(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  router.openapi(
    serviceRoute(deps, "read", {
      method: "get",
      path: "/v1/webhooks/{id}/deliveries",
      operationId: "listWebhookDeliveries",
      tags: ["Webhooks"],
      summary: "List an endpoint's deliveries",
      description: `The delivery log of one of this account's endpoints (another account's id answers 404). ${DELIVERY_LOG_RULES}`,
      request: { params: IdParam, query: DeliveryListQuery },
      responses: {
        200: { description: "A page of deliveries.", content: json(pagedEnvelope(WebhookDelivery)) },
        ...errorResponses("mail", [400, 401, 404, 422, 429, 500]),
      },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const page = await listWebhookDeliveries<MailWebhookEvent>(
        MAIL_WEBHOOKS,
        deps.db,
        c.get("principal").customerId,
        c.req.valid("param").id,
        deliveryListInput(query),
      );
      return c.json({ data: page.items, paging: page.paging, request_id: c.get("requestId") }, 200);
    },
  );
}
