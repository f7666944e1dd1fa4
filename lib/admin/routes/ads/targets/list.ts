import { adminRoute } from "../../../access";
import { z } from "@hono/zod-openapi";
import type { AdsDeps } from "../../../../ads";
import { listTargets } from "../../../../ads";
import { AdminTarget } from "../../../../ads";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { requireCustomer } from "../../../customers";
import { CustomerIdParam } from "../../../customers/schema";
import type { AdminRouter } from "../../shared";

export function registerListCustomerAdTargets(router: AdminRouter, deps: AdsDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "get",
        path: "/v1/customers/{id}/ads/targets",
        operationId: "listCustomerAdTargets",
        tags: ["Ads targets"],
        summary: "List a customer's targets",
        description: "All targets, ordered by key.",
        request: { params: CustomerIdParam },
        responses: { 200: { description: "The targets.", content: json(envelope(z.array(AdminTarget))) }, ...errorResponses("admin", [401, 404, 422]) },
      },
      { target: ["customer"] },
    ),
    async (c) => {
      const { id } = c.req.valid("param");
      await requireCustomer(deps.db, id);
      return c.json({ data: await listTargets(deps.db, id), request_id: c.get("requestId") }, 200);
    },
  );
}
