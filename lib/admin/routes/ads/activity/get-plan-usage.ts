import { adminRoute } from "../../../access";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../../core/context";
import { envelope, errorResponses } from "../../../../core/openapi";
import { getPlanUsage } from "../../../../ads";
import { PlanUsage } from "../../../../ads";
import { requireCustomer } from "../../../customers";
import { json } from "../../../../core/json";
import { CustomerIdParam } from "../../../customers/schema";
import type { AdsDeps } from "../../../../ads";
import { tags } from "../../../ads/activity/schema";

export function registerGetCustomerAdsPlanUsage(router: OpenAPIHono<AppEnv>, deps: AdsDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "get",
        path: "/v1/customers/{id}/ads/plan/usage",
        operationId: "getCustomerAdsPlanUsage",
        tags,
        summary: "A customer's ads plan and usage of the running cycle",
        description:
          "As `GET /ads/v1/plan/usage` for that customer: stage, published ads against the included ads, spend and its projection, fee so far and expected fee (EUR cents).",
        request: { params: CustomerIdParam },
        responses: { 200: { description: "The usage.", content: json(envelope(PlanUsage)) }, ...errorResponses("admin", [401, 404, 422]) },
      },
      { target: ["customer"] },
    ),
    async (c) => {
      const { id } = c.req.valid("param");
      await requireCustomer(deps.db, id);
      return c.json({ data: await getPlanUsage(deps, id), request_id: c.get("requestId") }, 200);
    },
  );
}
