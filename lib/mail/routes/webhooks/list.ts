import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import { listWebhooks, MAX_WEBHOOKS_PER_CUSTOMER } from "../../../core/webhooks/registrations";
import type { MailWebhookEvent } from "../../../db/schema";
import type { MailDeps } from "../../deps";
import { MAIL_WEBHOOKS } from "../../webhooks/emit";
import { Webhook } from "../../webhooks/schema";

export function registerListWebhooks(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  router.openapi(
    serviceRoute(deps, "read", {
      method: "get",
      path: "/v1/webhooks",
      operationId: "listWebhooks",
      tags: ["Webhooks"],
      summary: "List webhook endpoints",
      description: `This account's endpoints, oldest first, without their secrets (at most ${MAX_WEBHOOKS_PER_CUSTOMER}, so the list is not paginated).`,
      responses: { 200: { description: "The endpoints.", content: json(envelope(z.array(Webhook))) }, ...errorResponses("mail", [401, 429, 500]) },
    }),
    async (c) =>
      c.json({ data: await listWebhooks<MailWebhookEvent>(MAIL_WEBHOOKS, deps.db, c.get("principal").customerId), request_id: c.get("requestId") }, 200),
  );
}
