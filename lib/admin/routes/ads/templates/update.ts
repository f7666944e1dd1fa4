import { adminRoute } from "../../../access";
import type { AdsDeps } from "../../../../ads";
import { updateAdTemplate } from "../../../../ads";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import type { AdminRouter } from "../../shared";
import { AdminAdTemplate } from "../../../../ads";
import { tags, templateBody, TemplateIdParam, parse, UpdateInput } from "../../../ads/templates/schema";

export function registerUpdateLibraryAdTemplate(router: AdminRouter, deps: AdsDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "admin",
      {
        method: "patch",
        path: "/v1/ads/templates/{template_id}",
        operationId: "updateLibraryAdTemplate",
        tags,
        summary: "Change or deactivate an ad template",
        description:
          "Partial; the result is checked as a whole (422 with paths) and gets a new `revision`, so preview URLs render again. `status: inactive` hides the template from every customer (404 there) without removing assignments.",
        request: { params: TemplateIdParam, body: { required: true, content: json(templateBody(true)) } },
        responses: { 200: { description: "The template.", content: json(envelope(AdminAdTemplate)) }, ...errorResponses("admin", [400, 401, 404, 422]) },
      },
      { target: ["template"] },
    ),
    async (c) =>
      c.json(
        { data: await updateAdTemplate(deps, c.req.valid("param").template_id, parse(UpdateInput, c.req.valid("json"))), request_id: c.get("requestId") },
        200,
      ),
  );
}
