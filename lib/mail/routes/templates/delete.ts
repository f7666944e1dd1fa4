import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import type { MailDeps } from "../../deps";
import { templateInUse } from "../../send-jobs/service";
import { deleteTemplate } from "../../templates/service";
import { IdParam } from "../../fields";

export function registerDeleteTemplate(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  router.openapi(
    serviceRoute(deps, "write", {
      method: "delete",
      path: "/v1/templates/{id}",
      operationId: "deleteTemplate",
      tags: ["Templates"],
      summary: "Delete a customer-origin template",
      description:
        "The template stops answering (404); messages sent from it keep their `template_id`. Admin-origin templates answer 403; a template used by a scheduled, running or paused send job answers 409 (`details` entry `reason`: `template_in_use`).",
      request: { params: IdParam },
      responses: {
        200: {
          description: "Deleted.",
          content: json(
            envelope(
              z
                .object({
                  id: z.uuid().openapi({ description: "The deleted template.", example: "7b1c9a4e-2f0d-4e8b-9c3a-5d6e7f8a9b0c" }),
                  deleted: z.boolean().openapi({ description: "Always true.", example: true }),
                })
                .openapi("TemplateDeleted"),
            ),
          ),
        },
        ...errorResponses("mail", [401, 403, 404, 409, 422, 429, 500]),
      },
    }),
    async (c) => {
      const id = c.req.valid("param").id;
      const customerId = c.get("principal").customerId;
      await deleteTemplate(deps.db, customerId, id, deps.clock.now(), (templateId) => templateInUse(deps.db, customerId, templateId));
      return c.json({ data: { id, deleted: true }, request_id: c.get("requestId") }, 200);
    },
  );
}
