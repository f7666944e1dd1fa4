import { z } from "@hono/zod-openapi";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import type { AdsDeps } from "../../deps";
import { listAdsWebhooks } from "../../webhooks/registrations";
import { offsetQuery, openapiWithAlias, type AdsRouter } from "../shared";
import { ADS_DELIVERY_RULES, AdsWebhook } from "../../webhooks/schema";
import { json } from "../../../core/json";

export function registerListWebhooks(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "read", {
    method: "get",
    path: "/v1/webhooks",
    operationId: "listAdsWebhooks",
    tags: ["Webhooks"],
    summary: "List webhooks",
    description: `This account's registrations, oldest first, with their delivery health (\`status\`/\`active\`, \`last_delivery_at\`, \`failure_count\`) and never the signing secret. Reporting scope suffices.\n\n${ADS_DELIVERY_RULES}`,
    request: { query: z.object(offsetQuery) },
    responses: {
      200: { description: "The registrations.", content: json(envelope(z.array(AdsWebhook))) },
      ...errorResponses("ads", [401, 402, 422, 429, 500]),
    },
  });
  openapiWithAlias(router, route, async (c) => {
    const webhooks = await listAdsWebhooks(deps, c.get("principal").customerId, c.req.valid("query"));
    return c.json({ data: webhooks, request_id: c.get("requestId") }, 200);
  });
}
