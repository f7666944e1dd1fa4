import { z } from "@hono/zod-openapi";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import type { AdsDeps } from "../../deps";
import { queryInsights } from "../../insights/query";
import { openapiWithAlias, type AdsRouter } from "../shared";
import { InsightRow, InsightsQuery } from "../../insights/schema";
import { json } from "../../../core/json";

export function registerGetInsights(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "read", {
    method: "get",
    path: "/v1/insights",
    operationId: "getInsights",
    tags: ["Insights"],
    summary: "Performance metrics of ad sets or ads",
    description:
      "From daily snapshots taken by a nightly job (never a live call): one row per ad set or ad with delivery in the range (and per breakdown value with `breakdowns`); entities without delivery have no row. Additive metrics are summed over the days; `reach` over more than one day is the highest single-day reach; `ctr`, `cpc`, `cpm`, `roas` and `cpa` are computed from the sums (never averaged) and null where the denominator is 0. Ad set figures add up their ads (so an ad set's daily reach counts a person reached by two of its ads twice). Conversions of the last 7 days are revised by the platform and the snapshots follow. `date_range` is a preset or `{ since, until }`, either as JSON in `date_range` or as `date_range[since]`/`date_range[until]`; days are those of the ad account's time zone. Rows are ordered by id, then breakdown values; the answer is not paged (at most one row per entity and breakdown value). Reporting scope suffices.",
    request: { query: InsightsQuery },
    responses: {
      200: { description: "The rows.", content: json(envelope(z.array(InsightRow))) },
      ...errorResponses("ads", [400, 401, 402, 404, 422, 429, 500]),
    },
  });
  openapiWithAlias(router, route, async (c) => {
    const query = c.req.valid("query");
    const rows = await queryInsights(deps, c.get("principal").customerId, query);
    return c.json({ data: rows, request_id: c.get("requestId") }, 200);
  });
}
