import { z } from "@hono/zod-openapi";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import type { AdsDeps } from "../../deps";
import { listVideos } from "../../media/videos";
import { openapiWithAlias, type AdsRouter } from "../shared";
import { MediaVideoItem } from "../../media/schema";
import { json } from "../../../core/json";

export function registerListVideos(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "read", {
    method: "get",
    path: "/v1/media/videos",
    operationId: "listVideos",
    tags: ["Media"],
    summary: "List the ad account's videos",
    description: "Live from the platform, newest first, with our `id` where the video was created through this API. Reporting scope suffices.",
    responses: { 200: { description: "The videos.", content: json(envelope(z.array(MediaVideoItem))) }, ...errorResponses("ads", [401, 402, 422, 429, 500]) },
  });
  openapiWithAlias(router, route, async (c) => {
    const videos = await listVideos(deps, c.get("principal").customerId);
    return c.json({ data: videos, request_id: c.get("requestId") }, 200);
  });
}
