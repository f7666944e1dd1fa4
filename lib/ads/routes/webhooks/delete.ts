import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import type { AdsDeps } from "../../deps";
import { deleteAdsWebhook } from "../../webhooks/registrations";
import { idParam, openapiWithAlias, type AdsRouter } from "../shared";
import { AdsWebhookDeleted } from "../../webhooks/schema";
import { json } from "../../../core/json";

export function registerDeleteWebhook(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "write", {
    method: "delete",
    path: "/v1/webhooks/{id}",
    operationId: "deleteAdsWebhook",
    tags: ["Webhooks"],
    summary: "Delete a webhook",
    description: "Removes the registration (an addition to the spec); deliveries still pending for it are dropped. Another account's id answers 404.",
    request: { params: idParam("webhook registration") },
    responses: { 200: { description: "Deleted.", content: json(envelope(AdsWebhookDeleted)) }, ...errorResponses("ads", [401, 402, 403, 404, 422, 429, 500]) },
  });
  openapiWithAlias(router, route, async (c) => {
    const id = c.req.valid("param").id;
    await deleteAdsWebhook(deps, c.get("principal").customerId, id);
    return c.json({ data: { id, deleted: true }, request_id: c.get("requestId") }, 200);
  });
}
