import { adminRoute } from "../../../access";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../../core/context";
import { envelope, errorResponses } from "../../../../core/openapi";
import { TemplatePreview } from "../../../../ads";
import { getTemplatePreview } from "../../../../ads";
import { requireCustomer } from "../../../customers";
import { json } from "../../../../core/json";
import type { AdsDeps } from "../../../../ads";
import { tags, TemplateParams } from "../../../ads/activity/schema";

export function registerGetCustomerAdTemplatePreview(router: OpenAPIHono<AppEnv>, deps: AdsDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "get",
        path: "/v1/customers/{id}/ads/templates/{template_id}/preview",
        operationId: "getCustomerAdTemplatePreview",
        tags,
        summary: "A customer's preview of an assigned template",
        description:
          "As `GET /ads/v1/templates/{id}/preview` for that customer: the stored preview values and the three `preview.png` URLs (1:1, 4:5, 9:16). The URLs are stable; each answers `no-cache` with a 302 to the image of the template's current revision and values (rendered on first request). A template not assigned to the customer, or inactive, answers 404.",
        request: { params: TemplateParams },
        responses: { 200: { description: "The preview.", content: json(envelope(TemplatePreview)) }, ...errorResponses("admin", [401, 404, 422]) },
      },
      { target: ["customer", "template"] },
    ),
    async (c) => {
      const { id, template_id } = c.req.valid("param");
      await requireCustomer(deps.db, id);
      return c.json({ data: await getTemplatePreview(deps, id, template_id), request_id: c.get("requestId") }, 200);
    },
  );
}
