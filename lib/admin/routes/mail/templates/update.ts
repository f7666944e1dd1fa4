import { adminRoute } from "../../../access";
import type { CoreDeps } from "../../../../core/context";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { updateTemplate } from "../../../../mail";
import { requireCustomer } from "../../../customers";
import type { AdminRouter } from "../../shared";
import { CustomerTemplateParams, MailTemplate, UpdateMailTemplate, tags, stackRule } from "../../../mail/templates/schema";

export function registerUpdateCustomerMailTemplate(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "admin",
      {
        method: "patch",
        path: "/v1/customers/{id}/mail/templates/{templateId}",
        operationId: "updateCustomerMailTemplate",
        tags,
        summary: "Change a template",
        description: `Partial update; \`params\` and \`blocks\` are replaced as a whole; bumps \`version\`. Works on templates of both origins (an operator may, for example, archive a builder template), but only admin-origin templates carry a contract: \`params\` on a builder template answers 422. \`kind\` cannot change: create a new template instead. ${stackRule}`,
        request: { params: CustomerTemplateParams, body: { required: true, content: json(UpdateMailTemplate) } },
        responses: {
          200: { description: "The changed template.", content: json(envelope(MailTemplate)) },
          ...errorResponses("admin", [400, 401, 403, 404, 422]),
        },
      },
      { target: ["customer", "template"] },
    ),
    async (c) => {
      const { id, templateId } = c.req.valid("param");
      await requireCustomer(deps.db, id);
      const template = await updateTemplate(deps.db, id, templateId, c.req.valid("json"), deps.clock.now(), "admin");
      return c.json({ data: template, request_id: c.get("requestId") }, 200);
    },
  );
}
