import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import type { AdsDeps } from "../../deps";
import { getVideo } from "../../media/videos";
import { idParam, openapiWithAlias, type AdsRouter } from "../shared";
import { MediaVideo } from "../../media/schema";
import { json } from "../../../core/json";

export function registerGetVideo(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "read", {
    method: "get",
    path: "/v1/media/videos/{id}",
    operationId: "getVideo",
    tags: ["Media"],
    summary: "Get a video's processing status",
    description:
      "While `PROCESSING` the platform is asked on every call; `READY` and `FAILED` are final and answered from our record with `processed_at`. Reporting scope suffices.",
    request: { params: idParam("video") },
    responses: { 200: { description: "The video.", content: json(envelope(MediaVideo)) }, ...errorResponses("ads", [401, 402, 404, 422, 429, 500]) },
  });
  openapiWithAlias(router, route, async (c) => {
    const video = await getVideo(deps, c.get("principal").customerId, c.req.valid("param").id);
    return c.json({ data: video, request_id: c.get("requestId") }, 200);
  });
}
