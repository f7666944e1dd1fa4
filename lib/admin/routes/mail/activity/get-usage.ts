import { adminRoute } from "../../../access";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../../core/context";
import { envelope, errorResponses } from "../../../../core/openapi";
import { Usage } from "../../../../mail";
import { getUsage } from "../../../../mail";
import { requireCustomer } from "../../../customers";
import { json } from "../../../../core/json";
import { CustomerIdParam } from "../../../customers/schema";
import type { CoreDeps } from "../../../../core/context";
import { tags } from "../../../mail/activity/schema";

export function registerGetCustomerMailUsage(router: OpenAPIHono<AppEnv>, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "get",
        path: "/v1/customers/{id}/mail/usage",
        operationId: "getCustomerMailUsage",
        tags,
        summary: "A customer's mail usage of the month",
        description:
          "As `GET /mail/v1/usage` for that customer: accepted live e-mails this UTC month, projection, the 12 months before, the limits and what remains.",
        request: { params: CustomerIdParam },
        responses: { 200: { description: "Usage.", content: json(envelope(Usage)) }, ...errorResponses("admin", [401, 404, 422]) },
      },
      { target: ["customer"] },
    ),
    async (c) => {
      const customer = await requireCustomer(deps.db, c.req.valid("param").id);
      const limits = { monthlyLimit: customer.mail.monthly_limit, maxPerJob: customer.mail.max_per_job };
      return c.json({ data: await getUsage(deps.db, customer.id, limits, deps.clock.now()), request_id: c.get("requestId") }, 200);
    },
  );
}
