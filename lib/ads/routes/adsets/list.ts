import { z } from "@hono/zod-openapi";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import { listAdSets } from "../../adsets/service";
import type { AdsDeps } from "../../deps";
import { offsetQuery, openapiWithAlias, type AdsRouter } from "../shared";
import { AdSet } from "../../adsets/schema";
import { json } from "../../../core/json";
import { configuredStatuses } from "../../../db/schema/index";

export function registerListAdSets(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "read", {
    method: "get",
    path: "/v1/adsets",
    operationId: "listAdSets",
    tags: ["Ad sets"],
    summary: "List ad sets",
    description: "Newest first, from our records. Filters combine with AND. Reporting scope suffices.",
    request: {
      query: z.object({
        target: z.string().min(1).max(64).optional().openapi({ description: "Only ad sets of this target key.", example: "demo" }),
        status: z.enum(configuredStatuses).optional().openapi({ description: "Only ad sets with this status.", example: "ACTIVE" }),
        ...offsetQuery,
      }),
    },
    responses: { 200: { description: "The ad sets.", content: json(envelope(z.array(AdSet))) }, ...errorResponses("ads", [401, 402, 422, 429, 500]) },
  });
  openapiWithAlias(router, route, async (c) => {
    const adSets = await listAdSets(deps.db, c.get("principal").customerId, c.req.valid("query"));
    return c.json({ data: adSets, request_id: c.get("requestId") }, 200);
  });
}
