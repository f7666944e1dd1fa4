import { adminRoute } from "../../../access";
import type { CoreDeps } from "../../../../core/context";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { postmarkWebhookSetup } from "../../../../mail";
import { requireCustomer } from "../../../customers";
import { CustomerIdParam } from "../../../customers/schema";
import type { AdminRouter } from "../../shared";
import { about, MailPostmarkWebhook, secretsNote, tags, webhookView } from "../../../mail/postmark-webhook/schema";

export function registerGetCustomerPostmarkWebhook(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "get",
        path: "/v1/customers/{id}/mail/postmark-webhook",
        operationId: "getCustomerPostmarkWebhook",
        tags,
        summary: "The customer's Postmark webhook URL and settings (without the password)",
        description: `${about} ${secretsNote} An unknown customer answers 404.`,
        request: { params: CustomerIdParam },
        responses: {
          200: { description: "The webhook URL and settings.", content: json(envelope(MailPostmarkWebhook)) },
          ...errorResponses("admin", [401, 404, 422]),
        },
      },
      { target: ["customer"] },
    ),
    async (c) => {
      const customer = await requireCustomer(deps.db, c.req.valid("param").id);
      const { password: _password, url_with_credentials: _url, ...setup } = await postmarkWebhookSetup(deps, customer.id);
      return c.json({ data: await webhookView(deps.db, setup), request_id: c.get("requestId") }, 200);
    },
  );
}
