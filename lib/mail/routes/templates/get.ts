import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import type { MailDeps } from "../../deps";
import { getTemplateRow, toTemplateView } from "../../templates/service";
import { IdParam } from "../../fields";
import { Template } from "../../templates/schema";

export function registerGetTemplate(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  router.openapi(
    serviceRoute(deps, "read", {
      method: "get",
      path: "/v1/templates/{id}",
      operationId: "getTemplate",
      tags: ["Templates"],
      summary: "Get a template with its stack",
      request: { params: IdParam },
      responses: { 200: { description: "The template.", content: json(envelope(Template)) }, ...errorResponses("mail", [401, 404, 422, 429, 500]) },
    }),
    async (c) => {
      const row = await getTemplateRow(deps.db, c.get("principal").customerId, c.req.valid("param").id);
      return c.json({ data: toTemplateView(row), request_id: c.get("requestId") }, 200);
    },
  );
}
