import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import { enableWebhook } from "../../../core/webhooks/deliveries";
import { ENABLE_RULES } from "../../../core/webhooks/schema";
import type { AdsWebhookEvent } from "../../../db/schema";
import type { AdsDeps } from "../../deps";
import { ADS_WEBHOOKS } from "../../webhooks/events";
import { idParam, openapiWithAlias, type AdsRouter } from "../shared";
import { AdsWebhook } from "../../webhooks/schema";

export function registerEnableWebhook(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "write", {
    method: "post",
    path: "/v1/webhooks/{id}/enable",
    operationId: "enableAdsWebhook",
    tags: ["Webhooks"],
    summary: "Re-enable a webhook",
    description: `${ENABLE_RULES} Another account's id answers 404.`,
    request: { params: idParam("webhook registration") },
    responses: {
      200: { description: "The registration, active.", content: json(envelope(AdsWebhook)) },
      ...errorResponses("ads", [401, 402, 403, 404, 422, 429, 500]),
    },
  });
  openapiWithAlias(router, route, async (c) => {
    const webhook = await enableWebhook<AdsWebhookEvent>(ADS_WEBHOOKS, deps.db, c.get("principal").customerId, c.req.valid("param").id);
    return c.json({ data: webhook, request_id: c.get("requestId") }, 200);
  });
}
