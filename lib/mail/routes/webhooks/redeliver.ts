import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import { redeliverWebhookDelivery } from "../../../core/webhooks/deliveries";
import { DeliveryParams, REDELIVER_RULES } from "../../../core/webhooks/schema";
import type { MailWebhookEvent } from "../../../db/schema";
import type { MailDeps } from "../../deps";
import { MAIL_WEBHOOKS } from "../../webhooks/emit";
import { WebhookDelivery } from "./schema";

export function registerRedeliverWebhookDelivery(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  router.openapi(
    serviceRoute(deps, "write", {
      method: "post",
      path: "/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver",
      operationId: "redeliverWebhookDelivery",
      tags: ["Webhooks"],
      summary: "Redeliver a delivery",
      description: `${REDELIVER_RULES} Another account's endpoint or delivery answers 404.`,
      request: { params: DeliveryParams },
      responses: {
        202: { description: "Queued; the delivery as it stands.", content: json(envelope(WebhookDelivery)) },
        ...errorResponses("mail", [401, 403, 404, 409, 422, 429, 500]),
      },
    }),
    async (c) => {
      const { id, delivery_id } = c.req.valid("param");
      const delivery = await redeliverWebhookDelivery<MailWebhookEvent>(MAIL_WEBHOOKS, deps, c.get("principal").customerId, id, delivery_id);
      return c.json({ data: delivery, request_id: c.get("requestId") }, 202);
    },
  );
}
