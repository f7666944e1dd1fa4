import { adminRoute } from "../../../access";
import type { AdsDeps } from "../../../../ads";
import { unassignAdTemplate } from "../../../../ads";
import { errorResponses } from "../../../../core/openapi";
import { requireCustomer } from "../../../customers";
import type { AdminRouter } from "../../shared";
import { tags, AssignmentParams } from "../../../ads/templates/schema";

export function registerUnassignCustomerAdTemplate(router: AdminRouter, deps: AdsDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "admin",
      {
        method: "delete",
        path: "/v1/customers/{id}/ads/templates/{template_id}",
        operationId: "unassignCustomerAdTemplate",
        tags,
        summary: "Remove a template from a customer",
        description: "The customer no longer sees it (404); creatives already rendered stay. Not assigned → 404.",
        request: { params: AssignmentParams },
        responses: { 204: { description: "Removed." }, ...errorResponses("admin", [401, 404, 422]) },
      },
      { target: ["customer", "template"] },
    ),
    async (c) => {
      const { id, template_id } = c.req.valid("param");
      await requireCustomer(deps.db, id);
      await unassignAdTemplate(deps.db, id, template_id);
      return c.body(null, 204);
    },
  );
}
