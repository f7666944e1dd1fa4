import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import { renameCreative } from "../../creatives/service";
import type { AdsDeps } from "../../deps";
import { idParam, openapiWithAlias, type AdsRouter } from "../shared";
import { Creative, UpdateCreative } from "../../creatives/schema";
import { json } from "../../../core/json";

export function registerUpdateCreative(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "write", {
    method: "patch",
    path: "/v1/creatives/{id}",
    operationId: "updateCreative",
    tags: ["Creatives"],
    summary: "Rename a creative",
    description:
      "Only the name can change (1–200 characters, trimmed); anything else in the body → 422. The name changes here; a platform creative keeps the name it was built with. The answer is the whole creative (a superset of `{ id, name, type, platform_creative_id }`).",
    request: { params: idParam("creative"), body: { required: true, content: json(UpdateCreative) } },
    responses: {
      200: { description: "The renamed creative.", content: json(envelope(Creative)) },
      ...errorResponses("ads", [400, 401, 402, 403, 404, 409, 422, 429, 500]),
    },
  });
  openapiWithAlias(router, route, async (c) => {
    const creative = await renameCreative(deps.db, c.get("principal").customerId, c.req.valid("param").id, c.req.valid("json").name, deps.clock.now());
    return c.json({ data: creative, request_id: c.get("requestId") }, 200);
  });
}
