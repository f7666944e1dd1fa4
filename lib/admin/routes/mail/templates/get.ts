import { adminRoute } from "../../../access";
import type { CoreDeps } from "../../../../core/context";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { getTemplateRow, toTemplateView } from "../../../../mail";
import { requireCustomer } from "../../../customers";
import type { AdminRouter } from "../../shared";
import { CustomerTemplateParams, MailTemplate, tags } from "../../../mail/templates/schema";

export function registerGetCustomerMailTemplate(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "get",
        path: "/v1/customers/{id}/mail/templates/{templateId}",
        operationId: "getCustomerMailTemplate",
        tags,
        summary: "Get a template",
        description: "One template of the customer with its stack and contract.",
        request: { params: CustomerTemplateParams },
        responses: { 200: { description: "The template.", content: json(envelope(MailTemplate)) }, ...errorResponses("admin", [401, 404, 422]) },
      },
      { target: ["customer", "template"] },
    ),
    async (c) => {
      const { id, templateId } = c.req.valid("param");
      await requireCustomer(deps.db, id);
      return c.json({ data: toTemplateView(await getTemplateRow(deps.db, id, templateId)), request_id: c.get("requestId") }, 200);
    },
  );
}
