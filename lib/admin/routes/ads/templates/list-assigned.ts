import { adminRoute } from "../../../access";
import { z } from "@hono/zod-openapi";
import type { AdsDeps } from "../../../../ads";
import { listAssignments } from "../../../../ads";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { requireCustomer } from "../../../customers";
import type { AdminRouter } from "../../shared";
import { Assignment } from "../../../../ads";
import { tags, AssignmentParams } from "../../../ads/templates/schema";

export function registerListCustomerAdTemplates(router: AdminRouter, deps: AdsDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "get",
        path: "/v1/customers/{id}/ads/templates",
        operationId: "listCustomerAdTemplates",
        tags,
        summary: "List a customer's template assignments",
        request: { params: AssignmentParams.pick({ id: true }) },
        responses: { 200: { description: "The assignments.", content: json(envelope(z.array(Assignment))) }, ...errorResponses("admin", [401, 404, 422]) },
      },
      { target: ["customer"] },
    ),
    async (c) => {
      const { id } = c.req.valid("param");
      await requireCustomer(deps.db, id);
      return c.json({ data: await listAssignments(deps.db, id), request_id: c.get("requestId") }, 200);
    },
  );
}
