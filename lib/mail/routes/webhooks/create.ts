import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import { createWebhook, MAX_WEBHOOKS_PER_CUSTOMER } from "../../../core/webhooks/registrations";
import type { MailDeps } from "../../deps";
import { MAIL_WEBHOOKS } from "../../webhooks/emit";
import { WebhookWithSecret, CreateWebhook, DELIVERY_RULES } from "../../webhooks/schema";

export function registerCreateWebhook(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  router.openapi(
    serviceRoute(deps, "write", {
      method: "post",
      path: "/v1/webhooks",
      operationId: "createWebhook",
      tags: ["Webhooks"],
      summary: "Register a webhook endpoint",
      description: `Registers an https endpoint for \`job.completed\`, \`job.paused\`, \`message.bounced\` and/or \`suppression.changed\` and returns its \`signing_secret\` once (also as \`secret\`, a deprecated alias). At most ${MAX_WEBHOOKS_PER_CUSTOMER} endpoints per account (409, \`details\` entry \`reason\`: \`webhook_limit_reached\`). A URL that is not https, carries credentials or names a private, loopback or link-local address answers 422.\n\n${DELIVERY_RULES}`,
      request: { body: { required: true, content: json(CreateWebhook) } },
      responses: {
        201: { description: "The endpoint with its secret (shown this once).", content: json(envelope(WebhookWithSecret)) },
        ...errorResponses("mail", [400, 401, 403, 409, 422, 429, 500]),
      },
    }),
    async (c) => {
      const webhook = await createWebhook(MAIL_WEBHOOKS, deps, c.get("principal").customerId, c.req.valid("json"));
      return c.json({ data: { ...webhook, signing_secret: webhook.secret }, request_id: c.get("requestId") }, 201);
    },
  );
}
