import { adminRoute } from "../../../access";
import type { CoreDeps } from "../../../../core/context";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { setDesignRules } from "../../../../mail";
import { requireCustomer } from "../../../customers";
import { CustomerIdParam } from "../../../customers/schema";
import type { AdminRouter } from "../../shared";
import { MailDesignRules, PutMailDesignRules, designTokenReference, tags } from "../../../mail/design/schema";

export function registerSetCustomerDesignRules(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "admin",
      {
        method: "put",
        path: "/v1/customers/{id}/mail/design-rules",
        operationId: "setCustomerDesignRules",
        tags,
        summary: "Set a customer's design rules",
        description: `Replaces the customer's overrides with \`overrides\`, a partial set of tokens resolved over the complete defaults (\`{}\` resets to the defaults). Every bad value is reported at once: 422 with one \`details\` entry per key (\`overrides.color_primary\`), unknown keys included. Bumps \`version\`, which refreshes the customer's tiles.\n\n${designTokenReference}`,
        request: { params: CustomerIdParam, body: { required: true, content: json(PutMailDesignRules) } },
        responses: {
          200: { description: "Overrides and resolved tokens.", content: json(envelope(MailDesignRules)) },
          ...errorResponses("admin", [400, 401, 404, 422]),
        },
      },
      { target: ["customer"] },
    ),
    async (c) => {
      const customer = await requireCustomer(deps.db, c.req.valid("param").id);
      const rules = await setDesignRules(deps.db, customer.id, c.req.valid("json").overrides, deps.clock.now());
      return c.json({ data: rules, request_id: c.get("requestId") }, 200);
    },
  );
}
