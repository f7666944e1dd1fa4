import { adminRoute } from "../../../access";
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../../core/context";
import { envelope, errorResponses } from "../../../../core/openapi";
import { queryInsights } from "../../../../ads";
import { InsightRow, InsightsQuery } from "../../../../ads";
import { requireCustomer } from "../../../customers";
import { json } from "../../../../core/json";
import { CustomerIdParam } from "../../../customers/schema";
import type { AdsDeps } from "../../../../ads";
import { tags } from "../../../ads/activity/schema";

export function registerGetCustomerAdsInsights(router: OpenAPIHono<AppEnv>, deps: AdsDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "get",
        path: "/v1/customers/{id}/ads/insights",
        operationId: "getCustomerAdsInsights",
        tags,
        summary: "A customer's insights",
        description:
          "As `GET /ads/v1/insights` for that customer (same query parameters, same rows, from the daily snapshots). An unknown name in `fields` or `breakdowns` answers 422 naming it.",
        request: { params: CustomerIdParam, query: InsightsQuery },
        responses: { 200: { description: "The rows.", content: json(envelope(z.array(InsightRow))) }, ...errorResponses("admin", [400, 401, 404, 422]) },
      },
      { target: ["customer"] },
    ),
    async (c) => {
      const { id } = c.req.valid("param");
      const query = c.req.valid("query");
      await requireCustomer(deps.db, id);
      const rows = await queryInsights(deps, id, query);
      return c.json({ data: rows, request_id: c.get("requestId") }, 200);
    },
  );
}
