import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import { updateAdSet } from "../../adsets/service";
import type { AdsDeps } from "../../deps";
import { idParam, openapiWithAlias, rejectLockedFields, type AdsRouter } from "../shared";
import { AD_SET_UPDATE_LOCKED_FIELDS, AdSet, UpdateAdSet } from "../../adsets/schema";
import { json } from "../../../core/json";

export function registerUpdateAdSet(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "write", {
    method: "patch",
    path: "/v1/adsets/{id}",
    operationId: "updateAdSet",
    tags: ["Ad sets"],
    summary: "Change an ad set",
    description:
      "Partial update of budget, times and status, here and on the platform. Every change, pausing too, needs an active target (else 409); an archived ad set cannot change (409). The budget type chosen at creation stays (422 otherwise). Locked fields → 422 `details.locked_fields`. An empty body changes nothing and answers the ad set. The answer is the whole ad set (a superset of `{ id, status, daily_budget_cents, platform_adset_id }`).",
    middleware: [rejectLockedFields(AD_SET_UPDATE_LOCKED_FIELDS)],
    request: { params: idParam("ad set"), body: { required: true, content: json(UpdateAdSet) } },
    responses: {
      200: { description: "The changed ad set.", content: json(envelope(AdSet)) },
      ...errorResponses("ads", [400, 401, 402, 403, 404, 409, 422, 429, 500]),
    },
  });
  openapiWithAlias(router, route, async (c) => {
    const adSet = await updateAdSet(deps, c.get("principal").customerId, c.req.valid("param").id, c.req.valid("json"));
    return c.json({ data: adSet, request_id: c.get("requestId") }, 200);
  });
}
