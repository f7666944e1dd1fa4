import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import type { MailDeps } from "../../deps";
import { createTemplate } from "../../templates/service";
import { CreateTemplate, Template } from "../../templates/schema";

export function registerCreateTemplate(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  router.openapi(
    serviceRoute(deps, "write", {
      method: "post",
      path: "/v1/templates",
      operationId: "createTemplate",
      tags: ["Templates"],
      summary: "Save a builder stack as a template",
      description:
        "Creates a customer-origin newsletter template with fixed values (`{{placeholder}}` left in values are filled per recipient). The stack must not contain footer blocks (422): the footer comes from the account's frame. Blocks that are not enabled or not active answer 403. Send `Idempotency-Key` to create at most once.",
      request: { body: { required: true, content: json(CreateTemplate) } },
      responses: { 201: { description: "The template.", content: json(envelope(Template)) }, ...errorResponses("mail", [400, 401, 403, 409, 422, 429, 500]) },
    }),
    async (c) => {
      const template = await createTemplate(deps.db, c.get("principal").customerId, "customer", c.req.valid("json"));
      return c.json({ data: template, request_id: c.get("requestId") }, 201);
    },
  );
}
