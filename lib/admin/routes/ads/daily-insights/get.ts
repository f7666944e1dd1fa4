import { adminRoute } from "../../../access";
import type { AdsDeps } from "../../../../ads";
import { adSetDailyInsights, MAX_DAYS } from "../../../../ads";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { requireCustomer } from "../../../customers";
import { CustomerIdParam } from "../../../customers/schema";
import type { AdminRouter } from "../../shared";
import { AdSetDailyInsights, AdSetDailyInsightsQuery, tags } from "../../../ads/daily-insights/schema";

export function registerGetCustomerAdSetDailyInsights(router: AdminRouter, deps: AdsDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "get",
        path: "/v1/customers/{id}/ads/insights/daily",
        operationId: "getCustomerAdSetDailyInsights",
        tags,
        summary: "A customer's insights per day and ad set",
        description: `The stored daily snapshots per ad set and day, with the ad set's name: for charts. A day's row equals \`GET /ads/v1/insights?level=adset\` for that one day. \`date_range\`, \`date_range[since]\`/\`[until]\` and \`fields\` as in that read (default \`last_30d\`, in the ad account's time zone). At most ${MAX_DAYS} days per request. A longer or malformed range, or an unknown field, answers 422 naming it.`,
        request: { params: CustomerIdParam, query: AdSetDailyInsightsQuery },
        responses: { 200: { description: "The rows.", content: json(envelope(AdSetDailyInsights)) }, ...errorResponses("admin", [400, 401, 404, 422]) },
      },
      { target: ["customer"] },
    ),
    async (c) => {
      const { id } = c.req.valid("param");
      const query = c.req.valid("query");
      await requireCustomer(deps.db, id);
      const data = await adSetDailyInsights(deps, id, {
        date_range: { preset: query.date_range, since: query["date_range[since]"], until: query["date_range[until]"] },
        adset_id: query.adset_id,
        fields: query.fields,
      });
      return c.json({ data, request_id: c.get("requestId") }, 200);
    },
  );
}
