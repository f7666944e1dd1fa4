import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import type { AdsDeps } from "../../deps";
import { changeStage } from "../../plan/service";
import { openapiWithAlias, type AdsRouter } from "../shared";
import { ChangeStage, StageChange } from "../../plan/schema";
import { json } from "../../../core/json";

export function registerUpgradePlan(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "write", {
    method: "post",
    path: "/v1/plan/upgrade",
    operationId: "upgradePlan",
    tags: ["Plan"],
    summary: "Upgrade (or schedule a downgrade)",
    description:
      "Without a body (or `{}`): the next stage above the running cycle's, at once — its base fee applies to the whole running cycle and its included ads unblock 402 `quota_exceeded` immediately. With `stage` higher than the running stage: the same, to that stage. With `stage` lower than the selected stage: a downgrade from the next cycle (`change: downgrade_scheduled`, shown in `scheduled_change`); selecting the running stage again cancels it. The same stage changes nothing. At Scale without a body → 409 (Enterprise is agreed with the operator).",
    request: { body: { required: false, content: json(ChangeStage) } },
    responses: {
      200: { description: "The selection and the plan after it.", content: json(envelope(StageChange)) },
      ...errorResponses("ads", [400, 401, 402, 403, 409, 422, 429, 500]),
    },
  });
  openapiWithAlias(router, route, async (c) => {
    const body = c.req.valid("json") ?? {};
    const result = await changeStage(deps, c.get("principal").customerId, body);
    return c.json({ data: result, request_id: c.get("requestId") }, 200);
  });
}
