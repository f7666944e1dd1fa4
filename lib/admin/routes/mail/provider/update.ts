import { adminRoute } from "../../../access";
import type { AdminDeps } from "../../../deps";
import type { CoreDeps } from "../../../../core/context";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { setProviderConfig } from "../../../../mail/setup/provider-config";
import { MailProviderConfig, UpdateMailProviderConfig } from "../../../../mail/setup/provider-config-schema";
import { requireCustomer } from "../../../customers";
import { recentAuthSentence, requireRecentAuth } from "../../../reauthentication";
import { CustomerIdParam } from "../../customers/schema";
import type { AdminRouter } from "../../shared";
import { tags } from "./schema";

export function registerUpdateCustomerMailProvider(router: AdminRouter, deps: CoreDeps & Pick<AdminDeps, "mailProviderChanged">): void {
  router.openapi(
    adminRoute("admin", {
      method: "patch",
      path: "/v1/customers/{id}/mail/provider",
      operationId: "updateCustomerMailProvider",
      tags,
      summary: "Change a customer's Postmark configuration",
      description:
        "Partial update; lists are replaced as a whole, addresses and domains are stored lower-case. `server_token` is write-only: it is encrypted at rest (AES-256-GCM) and never returned or logged. The token is not tried against Postmark here, and a default sender outside the verified senders and domains is accepted: `GET /v1/customers/{id}/mail/readiness` reports such gaps, and sends answer 403 until every item is green. Setting `server_token` is sensitive: " +
        recentAuthSentence(),
      request: { params: CustomerIdParam, body: { required: true, content: json(UpdateMailProviderConfig) } },
      responses: {
        200: { description: "The configuration.", content: json(envelope(MailProviderConfig)) },
        ...errorResponses("admin", [400, 401, 403, 404, 422]),
      },
    }),
    async (c) => {
      const customer = await requireCustomer(deps.db, c.req.valid("param").id);
      const change = c.req.valid("json");
      if (change.server_token !== undefined) requireRecentAuth(deps, c.get("operator"), "Setting the Postmark server token");
      const config = await setProviderConfig(deps.db, deps.secrets, customer.id, change, deps.clock.now());
      // Embedded mode: the in-memory Postmark simulator learns the server at once.
      await deps.mailProviderChanged(customer.id);
      return c.json({ data: config, request_id: c.get("requestId") }, 200);
    },
  );
}
