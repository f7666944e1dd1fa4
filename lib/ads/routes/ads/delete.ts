import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import { archiveAd } from "../../ad/service";
import type { AdsDeps } from "../../deps";
import { idParam, openapiWithAlias, type AdsRouter } from "../shared";
import { Ad } from "../../ad/schema";
import { json } from "../../../core/json";

export function registerDeleteAd(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "write", {
    method: "delete",
    path: "/v1/ads/{id}",
    operationId: "archiveAd",
    tags: ["Ads"],
    summary: "Archive an ad",
    description:
      "Archives the ad on the platform and here (not a hard delete; it stays listable with status ARCHIVED and still counts as published this month). Works whatever the target's status. Archiving again answers the same record. The answer is the whole ad (a superset of `{ id, status: ARCHIVED }`).",
    request: { params: idParam("ad") },
    responses: { 200: { description: "The archived ad.", content: json(envelope(Ad)) }, ...errorResponses("ads", [401, 402, 403, 404, 422, 429, 500]) },
  });
  openapiWithAlias(router, route, async (c) => {
    const ad = await archiveAd(deps, c.get("principal").customerId, c.req.valid("param").id);
    return c.json({ data: ad, request_id: c.get("requestId") }, 200);
  });
}
