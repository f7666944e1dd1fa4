import { adminRoute } from "../../../access";
import { z } from "@hono/zod-openapi";
import type { AdsDeps } from "../../../../ads";
import { setPreviewValues } from "../../../../ads";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { requireCustomer } from "../../../customers";
import type { AdminRouter } from "../../shared";
import { Assignment } from "../../../../ads";
import { tags, AssignmentParams } from "../../../ads/templates/schema";

export function registerSetCustomerAdTemplatePreviewValues(router: AdminRouter, deps: AdsDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "admin",
      {
        method: "put",
        path: "/v1/customers/{id}/ads/templates/{template_id}/preview-values",
        operationId: "setCustomerAdTemplatePreviewValues",
        tags,
        summary: "Store a customer's preview values for a template",
        description:
          "Replaces the values the customer's previews use (`{}` = the examples). Checked like render values (422 naming `params.<name>`); image URLs are fetched when a preview renders.",
        request: {
          params: AssignmentParams,
          body: {
            required: true,
            content: json(
              z
                .object({
                  values: z.record(z.string(), z.string().max(2000)).openapi({
                    description: "Values by parameter name; `{}` = the examples.",
                    example: { headline: "Winter [[Sale]]", brand_color: "#1d4ed8" },
                  }),
                })
                .openapi("AdTemplatePreviewValues"),
            ),
          },
        },
        responses: { 200: { description: "The assignment.", content: json(envelope(Assignment)) }, ...errorResponses("admin", [400, 401, 404, 422]) },
      },
      { target: ["customer", "template"] },
    ),
    async (c) => {
      const { id, template_id } = c.req.valid("param");
      await requireCustomer(deps.db, id);
      const body = c.req.valid("json");
      return c.json({ data: await setPreviewValues(deps, id, template_id, body.values), request_id: c.get("requestId") }, 200);
    },
  );
}
