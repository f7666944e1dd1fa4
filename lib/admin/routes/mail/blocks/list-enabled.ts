import { adminRoute } from "../../../access";
import { z } from "@hono/zod-openapi";
import type { CoreDeps } from "../../../../core/context";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { listEnabledBlocks } from "../../../../mail";
import { requireCustomer } from "../../../customers";
import { CustomerIdParam } from "../../../customers/schema";
import type { AdminRouter } from "../../shared";
import { MailEnabledBlock, type MailEnabledBlockResponse, toMailBlockView, tags } from "../../../mail/blocks/schema";

export function registerListCustomerMailBlocks(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "get",
        path: "/v1/customers/{id}/mail/blocks",
        operationId: "listCustomerMailBlocks",
        tags,
        summary: "List a customer's enabled blocks",
        description:
          "The blocks enabled for the customer, oldest block first, including inactive ones (`active: false`): the customer's `GET /v1/blocks` shows only the enabled blocks that are also active.",
        request: { params: CustomerIdParam },
        responses: {
          200: { description: "The enabled blocks.", content: json(envelope(z.array(MailEnabledBlock))) },
          ...errorResponses("admin", [401, 404, 422]),
        },
      },
      { target: ["customer"] },
    ),
    async (c) => {
      const customer = await requireCustomer(deps.db, c.req.valid("param").id);
      const rows = await listEnabledBlocks(deps.db, customer.id);
      const data: MailEnabledBlockResponse[] = rows.map((row) => ({ ...toMailBlockView(row), enabled_at: row.enabledAt.toISOString() }));
      return c.json({ data, request_id: c.get("requestId") }, 200);
    },
  );
}
