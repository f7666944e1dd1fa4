import { adminRoute } from "../../../access";
import type { CoreDeps } from "../../../../core/context";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { createTemplate } from "../../../../mail";
import { requireCustomer } from "../../../customers";
import { CustomerIdParam } from "../../../customers/schema";
import type { AdminRouter } from "../../shared";
import { CreateMailTemplate, MailTemplate, tags, stackRule } from "../../../mail/templates/schema";

export function registerCreateCustomerMailTemplate(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "admin",
      {
        method: "post",
        path: "/v1/customers/{id}/mail/templates",
        operationId: "createCustomerMailTemplate",
        tags,
        summary: "Create an admin template",
        description: `Creates a template of origin \`admin\` with a parameter contract: every send must give each \`required\` parameter a non-empty value and no unknown ones. The customer sees it in \`GET /v1/templates\` but cannot change or delete it (403). ${stackRule} \`kind\` cannot change later; \`from\` defaults to the customer's default sender for the kind.`,
        request: { params: CustomerIdParam, body: { required: true, content: json(CreateMailTemplate) } },
        responses: { 201: { description: "The new template.", content: json(envelope(MailTemplate)) }, ...errorResponses("admin", [400, 401, 403, 404, 422]) },
      },
      { target: ["customer"], creates: "template" },
    ),
    async (c) => {
      const customer = await requireCustomer(deps.db, c.req.valid("param").id);
      const template = await createTemplate(deps.db, customer.id, "admin", c.req.valid("json"));
      return c.json({ data: template, request_id: c.get("requestId") }, 201);
    },
  );
}
