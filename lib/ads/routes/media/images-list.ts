import { z } from "@hono/zod-openapi";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import type { AdsDeps } from "../../deps";
import { listImages } from "../../media/images";
import { openapiWithAlias, type AdsRouter } from "../shared";
import { MediaImageItem } from "../../media/schema";
import { json } from "../../../core/json";

export function registerListImages(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "read", {
    method: "get",
    path: "/v1/media/images",
    operationId: "listImages",
    tags: ["Media"],
    summary: "List the ad account's images",
    description:
      "Live from the platform (not a cached copy), newest first; with `hash` only that image (an empty array when unknown). Reporting scope suffices.",
    request: {
      query: z.object({
        hash: z.string().min(1).max(64).optional().openapi({ description: "Only the image with this hash.", example: "2b4c3d8e9f10a1b2c3d4e5f60718293a" }),
      }),
    },
    responses: { 200: { description: "The images.", content: json(envelope(z.array(MediaImageItem))) }, ...errorResponses("ads", [401, 402, 422, 429, 500]) },
  });
  openapiWithAlias(router, route, async (c) => {
    const images = await listImages(deps, c.get("principal").customerId, c.req.valid("query").hash);
    return c.json({ data: images, request_id: c.get("requestId") }, 200);
  });
}
