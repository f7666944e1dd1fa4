import { z } from "@hono/zod-openapi";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import { audienceTypes } from "../../../db/schema";
import { listAudiences } from "../../audiences/service";
import type { AdsDeps } from "../../deps";
import { offsetQuery, openapiWithAlias, type AdsRouter } from "../shared";
import { Audience } from "../../audiences/schema";
import { json } from "../../../core/json";

export function registerListAudiences(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "read", {
    method: "get",
    path: "/v1/audiences",
    operationId: "listAudiences",
    tags: ["Audiences"],
    summary: "List audiences",
    description:
      "Newest first, from our records: `status` and sizes are the last known ones (see `status_checked_at`); GET /v1/audiences/{id} asks the platform. Reporting scope suffices.",
    request: {
      query: z.object({
        type: z.enum(audienceTypes).optional().openapi({ description: "Only audiences of this type.", example: "CUSTOM" }),
        ...offsetQuery,
      }),
    },
    responses: { 200: { description: "The audiences.", content: json(envelope(z.array(Audience))) }, ...errorResponses("ads", [401, 402, 422, 429, 500]) },
  });
  openapiWithAlias(router, route, async (c) => {
    const audiences = await listAudiences(deps.db, c.get("principal").customerId, c.req.valid("query"));
    return c.json({ data: audiences, request_id: c.get("requestId") }, 200);
  });
}
