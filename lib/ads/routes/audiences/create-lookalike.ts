import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import { createLookalikeAudience } from "../../audiences/service";
import type { AdsDeps } from "../../deps";
import { openapiWithAlias, type AdsRouter } from "../shared";
import { Audience, CreateLookalikeAudience } from "../../audiences/schema";
import { json } from "../../../core/json";

export function registerCreateLookalikeAudience(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "write", {
    method: "post",
    path: "/v1/audiences/lookalike",
    operationId: "createLookalikeAudience",
    tags: ["Audiences"],
    summary: "Create a lookalike audience",
    description:
      "Builds a lookalike of one of your custom audiences in DE, AT or CH (`ratio` 0.01–0.20). The origin must be your own custom audience (another customer's, a lookalike or an unknown id → 422 on `origin_audience_id`); the platform needs at least 100 matched people in it (else 422 from the platform's check). The new lookalike is `POPULATING` and becomes `READY` when the platform has built it, usually within hours; poll GET /v1/audiences/{id}.",
    request: { body: { required: true, content: json(CreateLookalikeAudience) } },
    responses: {
      201: { description: "The new lookalike.", content: json(envelope(Audience)) },
      ...errorResponses("ads", [400, 401, 402, 403, 409, 422, 429, 500]),
    },
  });
  openapiWithAlias(router, route, async (c) => {
    const audience = await createLookalikeAudience(deps, c.get("principal").customerId, c.req.valid("json"));
    return c.json({ data: audience, request_id: c.get("requestId") }, 201);
  });
}
