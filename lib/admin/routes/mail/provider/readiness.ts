import { adminRoute } from "../../../access";
import type { CoreDeps } from "../../../../core/context";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { readiness } from "../../../../mail/setup/provider-config";
import { MailReadiness } from "../../../../mail/setup/provider-config-schema";
import { requireCustomer } from "../../../customers";
import { CustomerIdParam } from "../../../customers/schema";
import type { AdminRouter } from "../../shared";
import { tags } from "../../../mail/provider/schema";

export function registerGetCustomerMailReadiness(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute("support", {
      method: "get",
      path: "/v1/customers/{id}/mail/readiness",
      operationId: "getCustomerMailReadiness",
      tags,
      summary: "Check whether a customer can send",
      description:
        "The spec's precondition for sending, item by item: `server_token`, `transactional_stream`, `broadcast_stream`, `verified_senders` (at least one address or domain), `default_newsletter_from` (set and verified), `newsletter_footer` and `transactional_footer` (a frame is set). Each is `green` or `red` with what to do. While any item is red, the customer's sends answer 403 `forbidden` with `details.missing` naming the red items.",
      request: { params: CustomerIdParam },
      responses: { 200: { description: "The readiness items.", content: json(envelope(MailReadiness)) }, ...errorResponses("admin", [401, 404, 422]) },
    }),
    async (c) => {
      const customer = await requireCustomer(deps.db, c.req.valid("param").id);
      const items = await readiness(deps.db, customer.id);
      return c.json({ data: { ready: items.every((i) => i.status === "green"), items }, request_id: c.get("requestId") }, 200);
    },
  );
}
