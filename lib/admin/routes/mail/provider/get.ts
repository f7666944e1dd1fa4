import { adminRoute } from "../../../access";
import type { CoreDeps } from "../../../../core/context";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { unconfiguredStreamEvents } from "../../../../mail";
import { getProviderConfig } from "../../../../mail";
import { credentialState } from "../../../credentials";
import { requireCustomer } from "../../../customers";
import { CustomerIdParam } from "../../../customers/schema";
import type { AdminRouter } from "../../shared";
import { MailProviderStatus, tags } from "../../../mail/provider/schema";

export function registerGetCustomerMailProvider(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "get",
        path: "/v1/customers/{id}/mail/provider",
        operationId: "getCustomerMailProvider",
        tags,
        summary: "Get a customer's Postmark configuration",
        description:
          "The customer's Postmark server and senders. The server token is never returned, to any role: `server_token_set` and `server_token_state` (when it last changed and by whom) say what is known of it (and `account_token_set` / `account_token_state` of the account token). Before anything is set every field is empty. `events_on_unconfigured_streams` counts provider events of the customer's messages that arrived on a Postmark message stream id that is neither `transactional_stream` nor `broadcast_stream` (a stream added or renamed at Postmark): they are stored against their message and feed the suppression mirror all the same, but a count above zero means the configuration should name that stream.",
        request: { params: CustomerIdParam },
        responses: { 200: { description: "The configuration.", content: json(envelope(MailProviderStatus)) }, ...errorResponses("admin", [401, 404, 422]) },
      },
      { target: ["customer"] },
    ),
    async (c) => {
      const customer = await requireCustomer(deps.db, c.req.valid("param").id);
      const [config, unconfigured] = await Promise.all([getProviderConfig(deps.db, customer.id), unconfiguredStreamEvents(deps.db, customer.id)]);
      const state = (field: "server_token" | "account_token", set: boolean) =>
        credentialState(deps.db, customer.id, { set, operationIds: ["updateCustomerMailProvider"], field });
      const [server_token_state, account_token_state] = await Promise.all([
        state("server_token", config.server_token_set),
        state("account_token", config.account_token_set),
      ]);
      return c.json(
        { data: { ...config, server_token_state, account_token_state, events_on_unconfigured_streams: unconfigured }, request_id: c.get("requestId") },
        200,
      );
    },
  );
}
