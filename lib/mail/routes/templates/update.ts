import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import type { MailDeps } from "../../deps";
import { updateTemplate } from "../../templates/service";
import { IdParam } from "../../fields";
import { Template, UpdateTemplate } from "../../templates/schema";

export function registerUpdateTemplate(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  router.openapi(
    serviceRoute(deps, "write", {
      method: "put",
      path: "/v1/templates/{id}",
      operationId: "updateTemplate",
      tags: ["Templates"],
      summary: "Change a customer-origin template",
      description: "Partial: only the given fields change; `version` is bumped. Admin-origin templates answer 403.",
      request: { params: IdParam, body: { required: true, content: json(UpdateTemplate) } },
      responses: {
        200: { description: "The template.", content: json(envelope(Template)) },
        ...errorResponses("mail", [400, 401, 403, 404, 409, 422, 429, 500]),
      },
    }),
    async (c) => {
      const template = await updateTemplate(deps.db, c.get("principal").customerId, c.req.valid("param").id, c.req.valid("json"), deps.clock.now());
      return c.json({ data: template, request_id: c.get("requestId") }, 200);
    },
  );
}
