import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import { archiveCreative } from "../../creatives/service";
import type { AdsDeps } from "../../deps";
import { idParam, openapiWithAlias, type AdsRouter } from "../shared";
import { Creative } from "../../creatives/schema";
import { json } from "../../../core/json";

export function registerDeleteCreative(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "write", {
    method: "delete",
    path: "/v1/creatives/{id}",
    operationId: "archiveCreative",
    tags: ["Creatives"],
    summary: "Archive a creative",
    description:
      "Archives here only: the platform creative remains and ads built from it keep running. An archived creative cannot be used for new ads (409). Archiving again answers the same record. The answer is the whole creative (a superset of `{ id, status }`).",
    request: { params: idParam("creative") },
    responses: {
      200: { description: "The archived creative.", content: json(envelope(Creative)) },
      ...errorResponses("ads", [401, 402, 403, 404, 422, 429, 500]),
    },
  });
  openapiWithAlias(router, route, async (c) => {
    const creative = await archiveCreative(deps.db, c.get("principal").customerId, c.req.valid("param").id, deps.clock.now());
    return c.json({ data: creative, request_id: c.get("requestId") }, 200);
  });
}
