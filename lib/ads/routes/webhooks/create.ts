import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import { MAX_WEBHOOKS_PER_CUSTOMER } from "../../../core/webhooks/registrations";
import type { AdsDeps } from "../../deps";
import { registerAdsWebhook } from "../../webhooks/registrations";
import { openapiWithAlias, type AdsRouter } from "../shared";
import { ADS_DELIVERY_RULES, AdsWebhookCreated, CreateAdsWebhook } from "../../webhooks/schema";
import { json } from "../../../core/json";

export function registerCreateWebhook(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "write", {
    method: "post",
    path: "/v1/webhooks",
    operationId: "createAdsWebhook",
    tags: ["Webhooks"],
    summary: "Register a webhook",
    description: `Registers an https endpoint for \`ad.status_changed\` and returns its \`signing_secret\` once (sealed at rest, never shown again). A URL that is not https (http included), carries credentials or names a private, loopback or link-local address answers 422 on \`url\`; an unknown event 422 on \`events\`; more than ${MAX_WEBHOOKS_PER_CUSTOMER} registrations 409.\n\n${ADS_DELIVERY_RULES}`,
    request: { body: { required: true, content: json(CreateAdsWebhook) } },
    responses: {
      201: { description: "The registration with its signing secret (shown this once).", content: json(envelope(AdsWebhookCreated)) },
      ...errorResponses("ads", [400, 401, 402, 403, 409, 422, 429, 500]),
    },
  });
  openapiWithAlias(router, route, async (c) => {
    const webhook = await registerAdsWebhook(deps, c.get("principal").customerId, c.req.valid("json"));
    return c.json({ data: webhook, request_id: c.get("requestId") }, 201);
  });
}
