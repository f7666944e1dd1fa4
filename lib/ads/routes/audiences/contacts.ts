import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import { changeContacts } from "../../audiences/service";
import type { AdsDeps } from "../../deps";
import { idParam, openapiWithAlias, type AdsRouter } from "../shared";
import { AudienceContactsBody, ContactUpload } from "../../audiences/schema";
import { json } from "../../../core/json";

const COMMON =
  "Up to 10,000 contacts per call (more → 422), normalised and SHA-256 hashed here exactly as on creation; raw values are never stored, logged or returned. Contacts without a valid `email` or `phone` are not sent and are listed by index. Only custom audiences have contacts (a lookalike → 409 `not_a_custom_audience`); an audience the platform has restricted (operation status 471) refuses changes → 409 `audience_restricted`; one deleted in the platform's own tools → 409 `audience_gone`.";

export function registerAudienceContactRoutes(router: AdsRouter, deps: AdsDeps): void {
  for (const [method, operation, operationId, summary] of [
    ["post", "add", "addAudienceContacts", "Add contacts to a custom audience"],
    ["delete", "remove", "removeAudienceContacts", "Remove contacts from a custom audience"],
  ] as const) {
    const route = serviceRoute(deps, "write", {
      method,
      path: "/v1/audiences/{id}/contacts",
      operationId,
      tags: ["Audiences"],
      summary,
      description: `${operation === "add" ? "Adds the contacts to" : "Removes the contacts (matched by their hashes) from"} the audience on the platform. ${COMMON}`,
      request: { params: idParam("audience"), body: { required: true, content: json(AudienceContactsBody) } },
      responses: {
        200: { description: "What was sent.", content: json(envelope(ContactUpload)) },
        ...errorResponses("ads", [400, 401, 402, 403, 404, 409, 422, 429, 500]),
      },
    });
    openapiWithAlias(router, route, async (c) => {
      const upload = await changeContacts(deps, c.get("principal").customerId, c.req.valid("param").id, operation, c.req.valid("json").contacts);
      return c.json({ data: upload, request_id: c.get("requestId") }, 200);
    });
  }
}
