import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import { createCustomAudience } from "../../audiences/service";
import type { AdsDeps } from "../../deps";
import { openapiWithAlias, type AdsRouter } from "../shared";
import { CreateCustomAudience, CustomAudienceCreated } from "../../audiences/schema";
import { json } from "../../../core/json";

export function registerCreateCustomAudience(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "write", {
    method: "post",
    path: "/v1/audiences/custom",
    operationId: "createCustomAudience",
    tags: ["Audiences"],
    summary: "Create a custom audience from CRM contacts",
    description: `Creates a customer-file custom audience on the platform and uploads the contacts (up to 10,000 per call; more → 422; add more with POST /v1/audiences/{id}/contacts). Each contact is normalised by the platform's rules and SHA-256 hashed here, before anything is sent or stored; the raw values are never stored, logged or returned. A contact is sent only with a valid \`email\` or \`phone\`; the others are counted and listed by index in \`upload.invalid_contacts\` (never with their values). Should the upload fail, the new audience is deleted again, so the call can simply be repeated. The answer is the audience with the platform's first status (a new audience with fewer than the platform's minimum of matched people is \`TOO_SMALL\`) and the upload's counts. Needs an onboarded ad account (422 \`details.missing\`).`,
    request: { body: { required: true, content: json(CreateCustomAudience) } },
    responses: {
      201: { description: "The new audience and what was uploaded.", content: json(envelope(CustomAudienceCreated)) },
      ...errorResponses("ads", [400, 401, 402, 403, 409, 422, 429, 500]),
    },
  });
  openapiWithAlias(router, route, async (c) => {
    const audience = await createCustomAudience(deps, c.get("principal").customerId, c.req.valid("json"));
    return c.json({ data: audience, request_id: c.get("requestId") }, 201);
  });
}
