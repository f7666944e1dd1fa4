import { z } from "@hono/zod-openapi";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import type { AdsDeps } from "../../deps";
import { LOOKUP_TTL_MS, searchInterests } from "../../targeting/service";
import { openapiWithAlias, type AdsRouter } from "../shared";
import { InterestItem, InterestQuery } from "../../targeting/schema";
import { json } from "../../../core/json";

export function registerTargetingInterests(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "read", {
    method: "get",
    path: "/v1/targeting/interests",
    operationId: "searchTargetingInterests",
    tags: ["Targeting"],
    summary: "Look up interests",
    description: `Interests from the platform's detailed-targeting search. Use \`{ id, name }\` in an ad set's \`targeting.flexible_spec[].interests\`. Answers are cached per query for ${LOOKUP_TTL_MS / 60_000} minutes. \`q\` missing → 400. Reporting scope suffices.`,
    request: { query: InterestQuery },
    responses: {
      200: { description: "Matching interests.", content: json(envelope(z.array(InterestItem))) },
      ...errorResponses("ads", [400, 401, 402, 422, 429, 500]),
    },
  });
  openapiWithAlias(router, route, async (c) => {
    const items = await searchInterests(deps, c.get("principal").customerId, c.req.valid("query"));
    return c.json({ data: items, request_id: c.get("requestId") }, 200);
  });
}
