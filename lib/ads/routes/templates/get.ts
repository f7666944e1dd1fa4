import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import type { AdsDeps } from "../../deps";
import { getCustomerTemplate, getTemplatePreview } from "../../templates/service";
import { idParam, openapiWithAlias, type AdsRouter } from "../shared";
import { TemplateDetail, TemplatePreview } from "../../templates/customer-schema";
import { json } from "../../../core/json";

export function registerGetTemplate(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "read", {
    method: "get",
    path: "/v1/templates/{id}",
    operationId: "getAdTemplate",
    tags: ["Templates"],
    summary: "Get a template's parameter schema",
    description: "Another account's, unassigned or inactive template → 404. Reporting scope suffices.",
    request: { params: idParam("template") },
    responses: { 200: { description: "The template.", content: json(envelope(TemplateDetail)) }, ...errorResponses("ads", [401, 402, 404, 422, 429, 500]) },
  });
  openapiWithAlias(router, route, async (c) => {
    const template = await getCustomerTemplate(deps, c.get("principal").customerId, c.req.valid("param").id);
    return c.json({ data: template, request_id: c.get("requestId") }, 200);
  });
}

export function registerGetTemplatePreview(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "read", {
    method: "get",
    path: "/v1/templates/{id}/preview",
    operationId: "getAdTemplatePreview",
    tags: ["Templates"],
    summary: "Get a template's stored preview values and preview URLs",
    description:
      "The values the operator stored for this account (`{}` when none; the previews then use each parameter's example) and the public preview URLs. Another account's, unassigned or inactive template → 404. Reporting scope suffices.",
    request: { params: idParam("template") },
    responses: { 200: { description: "The preview.", content: json(envelope(TemplatePreview)) }, ...errorResponses("ads", [401, 402, 404, 422, 429, 500]) },
  });
  openapiWithAlias(router, route, async (c) => {
    const preview = await getTemplatePreview(deps, c.get("principal").customerId, c.req.valid("param").id);
    return c.json({ data: preview, request_id: c.get("requestId") }, 200);
  });
}
