import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import type { AdsDeps } from "../../deps";
import { createVideo } from "../../media/videos";
import { openapiWithAlias, type AdsRouter } from "../shared";
import { CreateMediaVideo, MediaVideo } from "../../media/schema";
import { json } from "../../../core/json";

export function registerCreateVideo(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "write", {
    method: "post",
    path: "/v1/media/videos",
    operationId: "uploadVideo",
    tags: ["Media"],
    summary: "Hand over a video by URL",
    description:
      "The platform fetches the file itself (the bytes never pass through this service); the URL must be https and not an internal address. Answers at once with status `PROCESSING`; poll GET /v1/media/videos/{id} until `READY` or `FAILED`. Needs the token and ad account of the onboarding (else 422 `details.missing`).",
    request: { body: { required: true, content: json(CreateMediaVideo) } },
    responses: {
      201: { description: "The video, PROCESSING.", content: json(envelope(MediaVideo)) },
      ...errorResponses("ads", [400, 401, 402, 403, 409, 422, 429, 500]),
    },
  });
  openapiWithAlias(router, route, async (c) => {
    const video = await createVideo(deps, c.get("principal").customerId, c.req.valid("json").url);
    return c.json({ data: video, request_id: c.get("requestId") }, 201);
  });
}
