import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import type { AdsDeps } from "../../deps";
import { getPlan } from "../../plan/service";
import { openapiWithAlias, type AdsRouter } from "../shared";
import { Plan } from "../../plan/schema";
import { json } from "../../../core/json";

export function registerGetPlan(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "read", {
    method: "get",
    path: "/v1/plan",
    operationId: "getPlan",
    tags: ["Plan"],
    summary: "Contract state, stage and expected fee",
    description:
      "There is no tariff to choose: the stage of a cycle (a calendar month, UTC) follows the real ad spend retroactively — spend above a stage's included spend makes the whole cycle the next stage (Starter ≤ 2,500 EUR, Growth ≤ 10,000 EUR, Scale ≤ 50,000 EUR, Enterprise above) — unless a higher stage was selected with POST /v1/plan/upgrade. Fee = base fee + media fee % of the spend. Amounts in EUR cents. Reporting scope suffices; readable while deactivated or overdue.",
    responses: { 200: { description: "The plan.", content: json(envelope(Plan)) }, ...errorResponses("ads", [401, 402, 429, 500]) },
  });
  openapiWithAlias(router, route, async (c) => c.json({ data: await getPlan(deps, c.get("principal").customerId), request_id: c.get("requestId") }, 200));
}
