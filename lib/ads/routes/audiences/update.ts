import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import { updateAudience } from "../../audiences/service";
import type { AdsDeps } from "../../deps";
import { idParam, openapiWithAlias, type AdsRouter } from "../shared";
import { Audience, UpdateAudience } from "../../audiences/schema";
import { json } from "../../../core/json";

export function registerUpdateAudience(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "write", {
    method: "patch",
    path: "/v1/audiences/{id}",
    operationId: "updateAudience",
    tags: ["Audiences"],
    summary: "Rename an audience or change its description",
    description:
      "Changes `name` and/or `description` here and on the platform (`description: null` clears it). An empty body changes nothing and answers the audience. Other fields → 422. An audience deleted in the platform's own tools → 409 `audience_gone`.",
    request: { params: idParam("audience"), body: { required: true, content: json(UpdateAudience) } },
    responses: {
      200: { description: "The changed audience.", content: json(envelope(Audience)) },
      ...errorResponses("ads", [400, 401, 402, 403, 404, 409, 422, 429, 500]),
    },
  });
  openapiWithAlias(router, route, async (c) => {
    const audience = await updateAudience(deps, c.get("principal").customerId, c.req.valid("param").id, c.req.valid("json"));
    return c.json({ data: audience, request_id: c.get("requestId") }, 200);
  });
}
