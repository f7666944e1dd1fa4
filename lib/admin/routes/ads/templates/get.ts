import { adminRoute } from "../../../access";
import type { AdsDeps } from "../../../../ads";
import { getAdTemplate } from "../../../../ads";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import type { AdminRouter } from "../../shared";
import { AdminAdTemplate } from "../../../../ads";
import { tags, TemplateIdParam } from "../../../ads/templates/schema";

export function registerGetLibraryAdTemplate(router: AdminRouter, deps: AdsDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "get",
        path: "/v1/ads/templates/{template_id}",
        operationId: "getLibraryAdTemplate",
        tags,
        summary: "Get an ad template",
        request: { params: TemplateIdParam },
        responses: { 200: { description: "The template.", content: json(envelope(AdminAdTemplate)) }, ...errorResponses("admin", [401, 404, 422]) },
      },
      { target: ["template"] },
    ),
    async (c) => c.json({ data: await getAdTemplate(deps.db, c.req.valid("param").template_id), request_id: c.get("requestId") }, 200),
  );
}
