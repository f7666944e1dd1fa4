import { adminRoute } from "../../../access";
import type { CoreDeps } from "../../../../core/context";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { frameFor } from "../../../../mail";
import { getFrame, type FrameRecord } from "../../../../mail";
import { requireCustomer } from "../../../customers";
import { CustomerIdParam } from "../../../customers/schema";
import type { AdminRouter } from "../../shared";
import { MailFrame, tags } from "../../../mail/frame/schema";

export function registerGetCustomerFrame(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "get",
        path: "/v1/customers/{id}/mail/frame",
        operationId: "getCustomerFrame",
        tags,
        summary: "Get a customer's frame",
        description:
          "Header, footers and brand values wrapped around every mail of the customer. While none is set the answer is the default frame with the customer's name as `company_name`, marked by `version` 0 and `updated_at` null: that is what renders, but the readiness items `newsletter_footer` and `transactional_footer` stay red until a frame is set.",
        request: { params: CustomerIdParam },
        responses: { 200: { description: "The frame.", content: json(envelope(MailFrame)) }, ...errorResponses("admin", [401, 404, 422]) },
      },
      { target: ["customer"] },
    ),
    async (c) => {
      const customer = await requireCustomer(deps.db, c.req.valid("param").id);
      const frame: FrameRecord = (await getFrame(deps.db, customer.id)) ?? {
        ...(await frameFor(deps.db, customer.id, customer.name)),
        version: 0,
        updated_at: null,
      };
      return c.json({ data: { ...frame, header_mjml: frame.header_mjml ?? null }, request_id: c.get("requestId") }, 200);
    },
  );
}
