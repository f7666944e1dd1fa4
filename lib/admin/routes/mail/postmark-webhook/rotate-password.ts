import { adminRoute } from "../../../access";
import type { AdminDeps } from "../../../deps";
import type { CoreDeps } from "../../../../core/context";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { ROTATION_GRACE_SECONDS } from "../../../../mail";
import { rotatePostmarkWebhook } from "../../../../mail";
import { requireCustomer } from "../../../customers";
import { CustomerIdParam } from "../../../customers/schema";
import type { AdminRouter } from "../../shared";
import { about, MailPostmarkWebhookSecret, RotateBody, tags, webhookView } from "../../../mail/postmark-webhook/schema";

export function registerRotateCustomerPostmarkWebhookPassword(router: AdminRouter, deps: CoreDeps & Pick<AdminDeps, "mailProviderChanged">): void {
  router.openapi(
    adminRoute(
      deps,
      "admin",
      {
        method: "post",
        path: "/v1/customers/{id}/mail/postmark-webhook/rotate",
        operationId: "rotateCustomerPostmarkWebhookPassword",
        tags,
        summary: "Rotate the customer's Postmark webhook password",
        description: `A new random password for the customer's webhook URL. The previous one keeps working for \`grace_seconds\` (default one day), so events keep arriving while the webhook is updated in Postmark; a second rotation within the grace period ends the older password at once. The answer shows the new password and the URL with it (the one to paste into Postmark), so it is recorded in the audit log like any write. ${about}`,
        request: { params: CustomerIdParam, body: { required: false, content: json(RotateBody) } },
        responses: {
          200: { description: "The new webhook URL and settings, with the new password.", content: json(envelope(MailPostmarkWebhookSecret)) },
          ...errorResponses("admin", [400, 401, 403, 404, 422]),
        },
      },
      { target: ["customer"], recentAuth: true },
    ),
    async (c) => {
      const customer = await requireCustomer(deps.db, c.req.valid("param").id);
      const grace = (c.req.valid("json") as { grace_seconds?: number } | undefined)?.grace_seconds ?? ROTATION_GRACE_SECONDS.default;
      const setup = await rotatePostmarkWebhook(deps, customer.id, grace);
      // Embedded mode: the simulated server posts with the new credentials from now on.
      await deps.mailProviderChanged(customer.id);
      return c.json({ data: await webhookView(deps.db, setup), request_id: c.get("requestId") }, 200);
    },
  );
}
