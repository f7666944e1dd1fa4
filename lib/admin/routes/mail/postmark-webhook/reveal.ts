import { adminRoute } from "../../../access";
import type { CoreDeps } from "../../../../core/context";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { postmarkWebhookSetup } from "../../../../mail";
import { requireCustomer } from "../../../customers";
import { CustomerIdParam } from "../../../customers/schema";
import type { AdminRouter } from "../../shared";
import { about, MailPostmarkWebhookSecret, tags, webhookView } from "../../../mail/postmark-webhook/schema";

export function registerRevealCustomerPostmarkWebhook(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "admin",
      {
        method: "post",
        path: "/v1/customers/{id}/mail/postmark-webhook/reveal",
        operationId: "revealCustomerPostmarkWebhook",
        tags,
        summary: "Reveal the customer's Postmark webhook password",
        description: `The webhook settings with the current password and the URL with the credentials in it, to paste into the customer's Postmark server. A POST so that no cache, prefetch or link can fetch it: it changes nothing. ${about} An unknown customer answers 404.`,
        request: { params: CustomerIdParam },
        responses: {
          200: { description: "The webhook URL and settings with the password.", content: json(envelope(MailPostmarkWebhookSecret)) },
          ...errorResponses("admin", [401, 403, 404, 422]),
        },
      },
      { target: ["customer"], revealsSecret: "postmark_webhook_password", recentAuth: true },
    ),
    async (c) => {
      const customer = await requireCustomer(deps.db, c.req.valid("param").id);
      const setup = await postmarkWebhookSetup(deps, customer.id);
      return c.json({ data: await webhookView(deps.db, setup), request_id: c.get("requestId") }, 200);
    },
  );
}
