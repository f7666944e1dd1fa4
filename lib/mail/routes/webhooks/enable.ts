import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import { enableWebhook } from "../../../core/webhooks/deliveries";
import { ENABLE_RULES } from "../../../core/webhooks/schema";
import type { MailWebhookEvent } from "../../../db/schema";
import type { MailDeps } from "../../deps";
import { MAIL_WEBHOOKS } from "../../webhooks/emit";
import { IdParam } from "../../fields";
import { Webhook } from "../../webhooks/schema";

export function registerEnableWebhook(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  router.openapi(
    serviceRoute(deps, "write", {
      method: "post",
      path: "/v1/webhooks/{id}/enable",
      operationId: "enableWebhook",
      tags: ["Webhooks"],
      summary: "Re-enable a webhook endpoint",
      description: `${ENABLE_RULES} Another account's id answers 404.`,
      request: { params: IdParam },
      responses: { 200: { description: "The endpoint, active.", content: json(envelope(Webhook)) }, ...errorResponses("mail", [401, 403, 404, 422, 429, 500]) },
    }),
    async (c) => {
      const webhook = await enableWebhook<MailWebhookEvent>(MAIL_WEBHOOKS, deps.db, c.get("principal").customerId, c.req.valid("param").id);
      return c.json({ data: webhook, request_id: c.get("requestId") }, 200);
    },
  );
}
