import { adminRoute } from "../../../access";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../../core/context";
import { envelope, errorResponses } from "../../../../core/openapi";
import { previewStoredTemplate } from "../../../previews";
import { requireCustomer } from "../../../customers";
import { json } from "../../../../core/json";
import type { CoreDeps } from "../../../../core/context";
import { tags, TemplateParams, TemplatePreview } from "../../../mail/activity/schema";

export function registerPreviewCustomerMailTemplate(router: OpenAPIHono<AppEnv>, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "post",
        path: "/v1/customers/{id}/mail/templates/{templateId}/preview",
        operationId: "previewCustomerMailTemplate",
        tags,
        summary: "Preview a customer's template",
        description:
          "Renders a stored template of the customer (admin or builder origin) through the send pipeline: its stack with the customer's design rules, frame and footer for its kind, the contract's example values as parameters, recipient placeholders empty. Sends and bills nothing. A block no longer enabled or active answers 403 naming it in `details`; content that cannot become a mail 422.",
        request: { params: TemplateParams },
        responses: { 200: { description: "Subject and HTML.", content: json(envelope(TemplatePreview)) }, ...errorResponses("admin", [401, 403, 404, 422]) },
      },
      { target: ["customer", "template"], reads: true },
    ),
    async (c) => {
      const { id, templateId } = c.req.valid("param");
      const customer = await requireCustomer(deps.db, id);
      return c.json({ data: await previewStoredTemplate(deps.db, customer, templateId), request_id: c.get("requestId") }, 200);
    },
  );
}
