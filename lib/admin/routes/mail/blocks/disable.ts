import { adminRoute } from "../../../access";
import type { CoreDeps } from "../../../../core/context";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { setBlockEnabled } from "../../../../mail";
import { requireCustomer } from "../../../customers";
import type { AdminRouter } from "../../shared";
import { CustomerBlockParams, MailBlockEnablement, tags } from "../../../mail/blocks/schema";

export function registerDisableCustomerMailBlock(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "admin",
      {
        method: "delete",
        path: "/v1/customers/{id}/mail/blocks/{blockId}",
        operationId: "disableCustomerMailBlock",
        tags,
        summary: "Disable a block for a customer",
        description:
          "Idempotent: disabling a block that is not enabled changes nothing. The customer's saved templates keep their stacks, but previews and sends of stacks with the block answer 403 until it is enabled again.",
        request: { params: CustomerBlockParams },
        responses: {
          200: { description: "The enablement, now off.", content: json(envelope(MailBlockEnablement)) },
          ...errorResponses("admin", [401, 404, 422]),
        },
      },
      { target: ["customer", "block"] },
    ),
    async (c) => {
      const { id, blockId } = c.req.valid("param");
      await requireCustomer(deps.db, id);
      await setBlockEnabled(deps.db, id, blockId, false);
      return c.json({ data: { customer_id: id, block_id: blockId, enabled: false }, request_id: c.get("requestId") }, 200);
    },
  );
}
