import { adminRoute } from "../../../access";
import type { CoreDeps } from "../../../../core/context";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { setBlockEnabled } from "../../../../mail";
import { requireCustomer } from "../../../customers";
import type { AdminRouter } from "../../shared";
import { CustomerBlockParams, MailBlockEnablement, tags } from "../../../mail/blocks/schema";

export function registerEnableCustomerMailBlock(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "admin",
      {
        method: "put",
        path: "/v1/customers/{id}/mail/blocks/{blockId}",
        operationId: "enableCustomerMailBlock",
        tags,
        summary: "Enable a block for a customer",
        description:
          "Idempotent: enabling an enabled block changes nothing. An inactive block may be enabled; the customer can use it once it is active again. No body.",
        request: { params: CustomerBlockParams },
        responses: { 200: { description: "The enablement.", content: json(envelope(MailBlockEnablement)) }, ...errorResponses("admin", [401, 404, 422]) },
      },
      { target: ["customer", "block"] },
    ),
    async (c) => {
      const { id, blockId } = c.req.valid("param");
      await requireCustomer(deps.db, id);
      await setBlockEnabled(deps.db, id, blockId, true);
      return c.json({ data: { customer_id: id, block_id: blockId, enabled: true }, request_id: c.get("requestId") }, 200);
    },
  );
}
