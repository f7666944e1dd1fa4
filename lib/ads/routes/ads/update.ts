import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import { setAdStatus } from "../../ad/service";
import type { AdsDeps } from "../../deps";
import { idParam, openapiWithAlias, type AdsRouter } from "../shared";
import { Ad, UpdateAd } from "../../ad/schema";
import { json } from "../../../core/json";

export function registerUpdateAd(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "write", {
    method: "patch",
    path: "/v1/ads/{id}",
    operationId: "updateAd",
    tags: ["Ads"],
    summary: "Activate or pause an ad",
    description:
      "Changes the status here and on the platform, then reads the live `effective_status` (an ad still in review stays `PENDING_REVIEW`). Needs an active target (else 409); an archived ad or ad set cannot change (409). The answer is the whole ad (a superset of `{ id, status, effective_status, platform_ad_id }`).",
    request: { params: idParam("ad"), body: { required: true, content: json(UpdateAd) } },
    responses: {
      200: { description: "The changed ad.", content: json(envelope(Ad)) },
      ...errorResponses("ads", [400, 401, 402, 403, 404, 409, 422, 429, 500]),
    },
  });
  openapiWithAlias(router, route, async (c) => {
    const ad = await setAdStatus(deps, c.get("principal").customerId, c.req.valid("param").id, c.req.valid("json").status);
    return c.json({ data: ad, request_id: c.get("requestId") }, 200);
  });
}
