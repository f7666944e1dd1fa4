import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import { createCreative } from "../../creatives/service";
import type { AdsDeps } from "../../deps";
import { openapiWithAlias, type AdsRouter } from "../shared";
import { CreateCreative, Creative } from "../../creatives/schema";
import { json } from "../../../core/json";

export function registerCreateCreative(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "write", {
    method: "post",
    path: "/v1/creatives",
    operationId: "createCreative",
    tags: ["Creatives"],
    summary: "Register a medium as creative draft",
    description:
      "A draft holds the medium only; copy, link and call to action belong to the ad, and the platform creative is built with them by POST /v1/ads. Exactly one of `image_hash` (uploaded through POST /v1/media/images) and `video_id` (from POST /v1/media/videos): both or none → 422, an unknown one → 422. `thumbnail_hash` only with a video; without it the video must be READY: still PROCESSING → 409 (retry later), FAILED → 422. A single medium serves all three placement ratios. The answer is the whole creative (a superset of `{ id, type, status: DRAFT }`).",
    request: { body: { required: true, content: json(CreateCreative) } },
    responses: { 201: { description: "The draft.", content: json(envelope(Creative)) }, ...errorResponses("ads", [400, 401, 402, 403, 409, 422, 429, 500]) },
  });
  openapiWithAlias(router, route, async (c) => {
    const creative = await createCreative(deps, c.get("principal").customerId, c.req.valid("json"));
    return c.json({ data: creative, request_id: c.get("requestId") }, 201);
  });
}
