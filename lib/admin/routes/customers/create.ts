import { adminRoute } from "../../access";
import type { CoreDeps } from "../../../core/context";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { createCustomer } from "../../customers";
import type { AdminRouter } from "../shared";
import { CreateCustomer, Customer } from "../../customers/schema";

export function registerCreateCustomer(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "admin",
      {
        method: "post",
        path: "/v1/customers",
        operationId: "createCustomer",
        tags: ["Customers"],
        summary: "Create a customer",
        description: "Creates a customer with mail and ads settings (defaults where not given).",
        request: { body: { required: true, content: json(CreateCustomer) } },
        responses: { 201: { description: "Created.", content: json(envelope(Customer)) }, ...errorResponses("admin", [400, 401, 422]) },
      },
      { target: [], creates: "customer" },
    ),
    async (c) => {
      const customer = await createCustomer(deps.db, c.req.valid("json"), deps.clock.now());
      return c.json({ data: customer, request_id: c.get("requestId") }, 201);
    },
  );
}
