import { adminRoute } from "../../../access";
import type { AdminDeps } from "../../../deps";
import type { CoreDeps } from "../../../../core/context";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { setProviderConfig } from "../../../../mail";
import { checkSenders } from "../../../../mail";
import { MailProviderConfig, UpdateMailProviderConfig } from "../../../../mail";
import { requireCustomer } from "../../../customers";
import { recentAuthSentence, requireRecentAuth } from "../../../reauthentication";
import { CustomerIdParam } from "../../../customers/schema";
import type { AdminRouter } from "../../shared";
import { tags } from "../../../mail/provider/schema";

export function registerUpdateCustomerMailProvider(router: AdminRouter, deps: CoreDeps & Pick<AdminDeps, "mailProviderChanged" | "mail">): void {
  router.openapi(
    adminRoute(
      deps,
      "admin",
      {
        method: "patch",
        path: "/v1/customers/{id}/mail/provider",
        operationId: "updateCustomerMailProvider",
        tags,
        summary: "Change a customer's Postmark configuration",
        description:
          "Partial update; lists are replaced as a whole, addresses and domains are stored lower-case. `server_token` and `account_token` are write-only: encrypted at rest (AES-256-GCM), never returned or logged. With an account token, a change of the token or of the senders checks the senders with Postmark's Account API before answering (a Postmark that cannot be reached is recorded on `GET …/mail/senders`, the change stands). The token is not tried against Postmark here, and a default sender outside the verified senders and domains is accepted: `GET /v1/customers/{id}/mail/readiness` reports such gaps, and sends answer 403 until every item is green. Setting `server_token` or `account_token` is sensitive: " +
          recentAuthSentence(),
        request: { params: CustomerIdParam, body: { required: true, content: json(UpdateMailProviderConfig) } },
        responses: {
          200: { description: "The configuration.", content: json(envelope(MailProviderConfig)) },
          ...errorResponses("admin", [400, 401, 403, 404, 422]),
        },
      },
      { target: ["customer"] },
    ),
    async (c) => {
      const customer = await requireCustomer(deps.db, c.req.valid("param").id);
      const input = c.req.valid("json");
      if (input.server_token !== undefined || input.account_token !== undefined) {
        requireRecentAuth(
          deps,
          c.get("operator"),
          input.server_token !== undefined ? "Setting the Postmark server token" : "Setting the Postmark account token",
        );
      }
      const config = await setProviderConfig(deps.db, deps.secrets, customer.id, input, deps.clock.now());
      // Embedded mode: the in-memory Postmark simulator learns the server at once.
      await deps.mailProviderChanged(customer.id);
      // A new account token or other senders: ask Postmark now, so readiness reflects the change at once.
      const sendersChanged = ["account_token", "verified_senders", "verified_domains", "default_newsletter_from", "default_transactional_from"].some(
        (key) => key in input,
      );
      if (sendersChanged && config.account_token_set)
        await checkSenders({ ...deps, postmarkAccount: deps.mail.postmarkAccount }, customer.id, { verify: false });
      return c.json({ data: config, request_id: c.get("requestId") }, 200);
    },
  );
}
