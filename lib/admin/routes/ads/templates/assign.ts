import { adminRoute } from "../../../access";
import type { AdsDeps } from "../../../../ads";
import { assignAdTemplate } from "../../../../ads";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { requireCustomer } from "../../../customers";
import type { AdminRouter } from "../../shared";
import { Assignment } from "../../../../ads";
import { tags, AssignmentParams } from "../../../ads/templates/schema";

export function registerAssignCustomerAdTemplate(router: AdminRouter, deps: AdsDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "admin",
      {
        method: "put",
        path: "/v1/customers/{id}/ads/templates/{template_id}",
        operationId: "assignCustomerAdTemplate",
        tags,
        summary: "Assign a template to a customer",
        description: "Idempotent: assigning again keeps the stored preview values. Unknown customer or template → 404.",
        request: { params: AssignmentParams },
        responses: { 200: { description: "The assignment.", content: json(envelope(Assignment)) }, ...errorResponses("admin", [401, 404, 422]) },
      },
      { target: ["customer", "template"] },
    ),
    async (c) => {
      const { id, template_id } = c.req.valid("param");
      await requireCustomer(deps.db, id);
      return c.json({ data: await assignAdTemplate(deps, id, template_id), request_id: c.get("requestId") }, 200);
    },
  );
}
