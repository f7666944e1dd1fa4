import { z } from "@hono/zod-openapi";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import { listCreatives } from "../../creatives/service";
import type { AdsDeps } from "../../deps";
import { offsetQuery, openapiWithAlias, type AdsRouter } from "../shared";
import { Creative } from "../../creatives/schema";
import { json } from "../../../core/json";

export function registerListCreatives(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "read", {
    method: "get",
    path: "/v1/creatives",
    operationId: "listCreatives",
    tags: ["Creatives"],
    summary: "List creatives",
    description:
      "Newest first. `status` filters; `PAUSED` is accepted as the spec lists it but matches nothing, because creatives are never paused themselves (pause the ad). Reporting scope suffices.",
    request: {
      query: z.object({
        status: z.enum(["DRAFT", "ACTIVE", "PAUSED", "ARCHIVED"]).optional().openapi({ description: "Only creatives with this status.", example: "DRAFT" }),
        ...offsetQuery,
      }),
    },
    responses: { 200: { description: "The creatives.", content: json(envelope(z.array(Creative))) }, ...errorResponses("ads", [401, 402, 422, 429, 500]) },
  });
  openapiWithAlias(router, route, async (c) => {
    const creatives = await listCreatives(deps.db, c.get("principal").customerId, c.req.valid("query"));
    return c.json({ data: creatives, request_id: c.get("requestId") }, 200);
  });
}
