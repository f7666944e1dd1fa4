import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import { deleteAudience } from "../../audiences/service";
import type { AdsDeps } from "../../deps";
import { idParam, openapiWithAlias, type AdsRouter } from "../shared";
import { DeletedAudience } from "../../audiences/schema";
import { json } from "../../../core/json";

export function registerDeleteAudience(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "write", {
    method: "delete",
    path: "/v1/audiences/{id}",
    operationId: "deleteAudience",
    tags: ["Audiences"],
    summary: "Delete an audience",
    description:
      "Deletes the audience on the platform and here (a hard delete: afterwards its id answers 404). One already deleted in the platform's own tools is deleted here all the same. Lookalikes built on a deleted custom audience stay, with `origin_audience_id: null`.",
    request: { params: idParam("audience") },
    responses: { 200: { description: "Deleted.", content: json(envelope(DeletedAudience)) }, ...errorResponses("ads", [401, 402, 403, 404, 422, 429, 500]) },
  });
  openapiWithAlias(router, route, async (c) => {
    const deleted = await deleteAudience(deps, c.get("principal").customerId, c.req.valid("param").id);
    return c.json({ data: deleted, request_id: c.get("requestId") }, 200);
  });
}
