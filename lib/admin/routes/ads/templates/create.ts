import { adminRoute } from "../../../access";
import type { AdsDeps } from "../../../../ads";
import { createAdTemplate, TemplateInput } from "../../../../ads";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import type { AdminRouter } from "../../shared";
import { LAYOUT_RULES, AdminAdTemplate } from "../../../../ads";
import { tags, templateBody, parse } from "../../../ads/templates/schema";

export function registerCreateLibraryAdTemplate(router: AdminRouter, deps: AdsDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "admin",
      {
        method: "post",
        path: "/v1/ads/templates",
        operationId: "createLibraryAdTemplate",
        tags,
        summary: "Create an ad template",
        description: `A template for every customer it is assigned to. ${LAYOUT_RULES}`,
        request: { body: { required: true, content: json(templateBody(false)) } },
        responses: { 201: { description: "The template.", content: json(envelope(AdminAdTemplate)) }, ...errorResponses("admin", [400, 401, 422]) },
      },
      { target: [], creates: "template" },
    ),
    async (c) => c.json({ data: await createAdTemplate(deps, parse(TemplateInput, c.req.valid("json"))), request_id: c.get("requestId") }, 201),
  );
}
