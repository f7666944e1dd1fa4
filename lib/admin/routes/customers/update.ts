import { adminRoute } from "../../access";
import type { CoreDeps } from "../../../core/context";
import { NotFoundError } from "../../../core/errors";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { updateCustomer } from "../../customers";
import type { AdminRouter } from "../shared";
import { Customer, CustomerIdParam, UpdateCustomer } from "../../customers/schema";

export function registerUpdateCustomer(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "admin",
      {
        method: "patch",
        path: "/v1/customers/{id}",
        operationId: "updateCustomer",
        tags: ["Customers"],
        summary: "Change a customer's name or settings",
        description:
          "Partial update. Mail: `sending_blocked`, `mode`, `monthly_limit`, `max_per_job`. Ads: `account_state`, `stage`, `enterprise_included_ads`. Takes effect on the next request.",
        request: { params: CustomerIdParam, body: { required: true, content: json(UpdateCustomer) } },
        responses: { 200: { description: "The updated customer.", content: json(envelope(Customer)) }, ...errorResponses("admin", [400, 401, 404, 422]) },
      },
      { target: ["customer"] },
    ),
    async (c) => {
      const customer = await updateCustomer(deps.db, c.req.valid("param").id, c.req.valid("json"), deps.clock.now());
      if (!customer) throw new NotFoundError("Customer");
      deps.principals.invalidateCustomer(customer.id);
      return c.json({ data: customer, request_id: c.get("requestId") }, 200);
    },
  );
}
