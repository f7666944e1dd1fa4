import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import type { AdsDeps } from "../../deps";
import { getPlanUsage } from "../../plan/service";
import { openapiWithAlias, type AdsRouter } from "../shared";
import { PlanUsage } from "../../plan/schema";
import { json } from "../../../core/json";

export function registerGetPlanUsage(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "read", {
    method: "get",
    path: "/v1/plan/usage",
    operationId: "getPlanUsage",
    tags: ["Plan"],
    summary: "Usage of the running cycle",
    description:
      "Published ads against the included ads, spend so far (from the daily insight snapshots) and its projection to the cycle's end, the fee so far and the expected fee. Amounts in EUR cents. Reporting scope suffices; readable while deactivated or overdue.",
    responses: { 200: { description: "The usage.", content: json(envelope(PlanUsage)) }, ...errorResponses("ads", [401, 402, 429, 500]) },
  });
  openapiWithAlias(router, route, async (c) => c.json({ data: await getPlanUsage(deps, c.get("principal").customerId), request_id: c.get("requestId") }, 200));
}
