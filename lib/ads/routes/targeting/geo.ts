import { z } from "@hono/zod-openapi";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import type { AdsDeps } from "../../deps";
import { LOOKUP_TTL_MS, searchCities } from "../../targeting/service";
import { openapiWithAlias, type AdsRouter } from "../shared";
import { GeoItem, GeoQuery } from "../../targeting/schema";
import { json } from "../../../core/json";

export function registerTargetingGeo(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "read", {
    method: "get",
    path: "/v1/targeting/geo",
    operationId: "searchTargetingGeo",
    tags: ["Targeting"],
    summary: "Look up cities (DE, AT, CH)",
    description: `Cities from the platform's location search, restricted to DE, AT and CH, best matches first. The key goes into \`geo_locations.cities\` of a target configuration (set by the operator; ad sets take their location from the target). Answers are cached per query for ${LOOKUP_TTL_MS / 60_000} minutes. \`q\` missing → 400. Reporting scope suffices.`,
    request: { query: GeoQuery },
    responses: {
      200: { description: "Matching cities.", content: json(envelope(z.array(GeoItem))) },
      ...errorResponses("ads", [400, 401, 402, 422, 429, 500]),
    },
  });
  openapiWithAlias(router, route, async (c) => {
    const items = await searchCities(deps, c.get("principal").customerId, c.req.valid("query"));
    return c.json({ data: items, request_id: c.get("requestId") }, 200);
  });
}
