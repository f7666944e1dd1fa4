import { adminRoute } from "../../../access";
import type { CoreDeps } from "../../../../core/context";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { getDesignRules } from "../../../../mail";
import { requireCustomer } from "../../../customers";
import { CustomerIdParam } from "../../../customers/schema";
import type { AdminRouter } from "../../shared";
import { MailDesignRules, designTokenReference, tags } from "../../../mail/design/schema";

export function registerGetCustomerDesignRules(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "get",
        path: "/v1/customers/{id}/mail/design-rules",
        operationId: "getCustomerDesignRules",
        tags,
        summary: "Get a customer's design rules",
        description: `The customer's own overrides and the complete resolved tokens (defaults where no override exists; \`version\` 0 while there are none). The customer reads the same \`tokens\` at \`GET /v1/design-rules\`; blocks read them as \`{{token.<key>}}\`.\n\n${designTokenReference}`,
        request: { params: CustomerIdParam },
        responses: {
          200: { description: "Overrides and resolved tokens.", content: json(envelope(MailDesignRules)) },
          ...errorResponses("admin", [401, 404, 422]),
        },
      },
      { target: ["customer"] },
    ),
    async (c) => {
      const customer = await requireCustomer(deps.db, c.req.valid("param").id);
      return c.json({ data: await getDesignRules(deps.db, customer.id), request_id: c.get("requestId") }, 200);
    },
  );
}
