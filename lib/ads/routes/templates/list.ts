import { z } from "@hono/zod-openapi";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import type { AdsDeps } from "../../deps";
import { listCustomerTemplates } from "../../templates/service";
import { offsetQuery, openapiWithAlias, type AdsRouter } from "../shared";
import { TemplateListItem } from "../../templates/customer-schema";
import { json } from "../../../core/json";

export function registerListTemplates(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "read", {
    method: "get",
    path: "/v1/templates",
    operationId: "listAdTemplates",
    tags: ["Templates"],
    summary: "List the templates assigned to this account",
    description:
      "Only active templates the operator assigned to this account, by name. Listing renders nothing: the preview URLs render on their first request. Reporting scope suffices.",
    request: { query: z.object(offsetQuery) },
    responses: {
      200: { description: "The templates.", content: json(envelope(z.array(TemplateListItem))) },
      ...errorResponses("ads", [401, 402, 422, 429, 500]),
    },
  });
  openapiWithAlias(router, route, async (c) => {
    const templates = await listCustomerTemplates(deps, c.get("principal").customerId, c.req.valid("query"));
    return c.json({ data: templates, request_id: c.get("requestId") }, 200);
  });
}
