import { adminRoute } from "../../access";
import type { CoreDeps } from "../../../core/context";
import { NotFoundError } from "../../../core/errors";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { getCustomer } from "../../customers";
import type { AdminRouter } from "../shared";
import { Customer, CustomerIdParam } from "../../customers/schema";

export function registerGetCustomer(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "get",
        path: "/v1/customers/{id}",
        operationId: "getCustomer",
        tags: ["Customers"],
        summary: "Get a customer",
        request: { params: CustomerIdParam },
        responses: { 200: { description: "The customer.", content: json(envelope(Customer)) }, ...errorResponses("admin", [401, 404, 422]) },
      },
      { target: ["customer"] },
    ),
    async (c) => {
      const customer = await getCustomer(deps.db, c.req.valid("param").id, deps.clock.now());
      if (!customer) throw new NotFoundError("Customer");
      return c.json({ data: customer, request_id: c.get("requestId") }, 200);
    },
  );
}
