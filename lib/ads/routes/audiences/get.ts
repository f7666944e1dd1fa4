import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import { getAudience, LIVE_TTL_MS, POPULATING_TTL_MS } from "../../audiences/service";
import type { AdsDeps } from "../../deps";
import { idParam, openapiWithAlias, type AdsRouter } from "../shared";
import { Audience } from "../../audiences/schema";
import { json } from "../../../core/json";

export function registerGetAudience(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "read", {
    method: "get",
    path: "/v1/audiences/{id}",
    operationId: "getAudience",
    tags: ["Audiences"],
    summary: "Get an audience with its live status",
    description: `Status and approximate size as the platform reports them now; an answer is reused for ${LIVE_TTL_MS / 1000} s, ${POPULATING_TTL_MS / 1000} s while the audience is \`POPULATING\` (see \`status_checked_at\`), and any contact change makes the next read ask again. Another customer's id → 404. Reporting scope suffices.`,
    request: { params: idParam("audience") },
    responses: { 200: { description: "The audience.", content: json(envelope(Audience)) }, ...errorResponses("ads", [401, 402, 404, 422, 429, 500]) },
  });
  openapiWithAlias(router, route, async (c) => {
    const audience = await getAudience(deps, c.get("principal").customerId, c.req.valid("param").id);
    return c.json({ data: audience, request_id: c.get("requestId") }, 200);
  });
}
