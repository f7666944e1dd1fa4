import { z } from "@hono/zod-openapi";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import { listAds } from "../../ad/service";
import type { AdsDeps } from "../../deps";
import { offsetQuery, openapiWithAlias, type AdsRouter } from "../shared";
import { Ad } from "../../ad/schema";
import { json } from "../../../core/json";
import { configuredStatuses } from "../../../db/schema/index";

export function registerListAds(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "read", {
    method: "get",
    path: "/v1/ads",
    operationId: "listAds",
    tags: ["Ads"],
    summary: "List ads",
    description:
      "Newest first, with the cached `effective_status` (refreshed by GET /v1/status/{ad_id} and by status changes). Filters combine with AND. Reporting scope suffices.",
    request: {
      query: z.object({
        adset_id: z.uuid().optional().openapi({ description: "Only ads of this ad set.", example: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d" }),
        status: z.enum(configuredStatuses).optional().openapi({ description: "Only ads with this configured status.", example: "ACTIVE" }),
        ...offsetQuery,
      }),
    },
    responses: { 200: { description: "The ads.", content: json(envelope(z.array(Ad))) }, ...errorResponses("ads", [401, 402, 422, 429, 500]) },
  });
  openapiWithAlias(router, route, async (c) => {
    const ads = await listAds(deps.db, c.get("principal").customerId, c.req.valid("query"));
    return c.json({ data: ads, request_id: c.get("requestId") }, 200);
  });
}
