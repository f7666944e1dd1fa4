import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import { archiveAdSet } from "../../adsets/service";
import type { AdsDeps } from "../../deps";
import { idParam, openapiWithAlias, type AdsRouter } from "../shared";
import { AdSet } from "../../adsets/schema";
import { json } from "../../../core/json";

export function registerDeleteAdSet(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "write", {
    method: "delete",
    path: "/v1/adsets/{id}",
    operationId: "archiveAdSet",
    tags: ["Ad sets"],
    summary: "Archive an ad set",
    description:
      "Archives the ad set on the platform and here, with its ads (not a hard delete; it stays listable with status ARCHIVED). Works whatever the target's status. Archiving again answers the same record. The answer is the whole ad set (a superset of `{ id, status: ARCHIVED }`).",
    request: { params: idParam("ad set") },
    responses: { 200: { description: "The archived ad set.", content: json(envelope(AdSet)) }, ...errorResponses("ads", [401, 402, 403, 404, 422, 429, 500]) },
  });
  openapiWithAlias(router, route, async (c) => {
    const adSet = await archiveAdSet(deps, c.get("principal").customerId, c.req.valid("param").id);
    return c.json({ data: adSet, request_id: c.get("requestId") }, 200);
  });
}
