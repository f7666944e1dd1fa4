import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import { deleteWebhook } from "../../../core/webhooks/registrations";
import type { MailDeps } from "../../deps";
import { MAIL_WEBHOOKS } from "../../webhooks/emit";
import { IdParam } from "../../fields";
import { WebhookDeleted } from "../../webhooks/schema";

export function registerDeleteWebhook(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  router.openapi(
    serviceRoute(deps, "write", {
      method: "delete",
      path: "/v1/webhooks/{id}",
      operationId: "deleteWebhook",
      tags: ["Webhooks"],
      summary: "Delete a webhook endpoint",
      description: "Removes the endpoint; deliveries still pending for it are dropped. Another account's id answers 404.",
      request: { params: IdParam },
      responses: { 200: { description: "Deleted.", content: json(envelope(WebhookDeleted)) }, ...errorResponses("mail", [401, 403, 404, 422, 429, 500]) },
    }),
    async (c) => {
      const id = c.req.valid("param").id;
      await deleteWebhook(MAIL_WEBHOOKS, deps.db, c.get("principal").customerId, id);
      return c.json({ data: { id, deleted: true }, request_id: c.get("requestId") }, 200);
    },
  );
}
