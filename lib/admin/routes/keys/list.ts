import { adminRoute } from "../../access";
import { z } from "@hono/zod-openapi";
import { listApiKeys } from "../../../core/api-keys";
import type { CoreDeps } from "../../../core/context";
import { NotFoundError } from "../../../core/errors";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { getCustomer } from "../../customers";
import { CustomerIdParam } from "../../customers/schema";
import type { AdminRouter } from "../shared";
import { ApiKey } from "../../keys/schema";

export function registerListApiKeys(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "get",
        path: "/v1/customers/{id}/keys",
        operationId: "listApiKeys",
        tags: ["API keys"],
        summary: "List a customer's API keys",
        description: "Without secrets; revoked keys included with `revoked_at`.",
        request: { params: CustomerIdParam },
        responses: { 200: { description: "The keys.", content: json(envelope(z.array(ApiKey))) }, ...errorResponses("admin", [401, 404, 422]) },
      },
      { target: ["customer"] },
    ),
    async (c) => {
      const customerId = c.req.valid("param").id;
      if (!(await getCustomer(deps.db, customerId, deps.clock.now()))) throw new NotFoundError("Customer");
      return c.json({ data: await listApiKeys(deps.db, customerId), request_id: c.get("requestId") }, 200);
    },
  );
}
