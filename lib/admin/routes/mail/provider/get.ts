import { createRoute } from "@hono/zod-openapi";
import type { CoreDeps } from "../../../../core/context";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { getProviderConfig } from "../../../../mail/setup/provider-config";
import { requireCustomer } from "../../../customers";
import { CustomerIdParam } from "../../customers/schema";
import { security, type AdminRouter } from "../../shared";
import { MailProviderConfig, tags } from "./schema";

export function registerGetCustomerMailProvider(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/customers/{id}/mail/provider",
      operationId: "getCustomerMailProvider",
      tags,
      summary: "Get a customer's Postmark configuration",
      description:
        "The customer's Postmark server and senders. The server token is never returned, only `server_token_set`. Before anything is set every field is empty.",
      security,
      request: { params: CustomerIdParam },
      responses: { 200: { description: "The configuration.", content: json(envelope(MailProviderConfig)) }, ...errorResponses("admin", [401, 404, 422]) },
    }),
    async (c) => {
      const customer = await requireCustomer(deps.db, c.req.valid("param").id);
      return c.json({ data: await getProviderConfig(deps.db, customer.id), request_id: c.get("requestId") }, 200);
    },
  );
}
