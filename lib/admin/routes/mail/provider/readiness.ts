import { adminRoute } from "../../../access";
import type { CoreDeps } from "../../../../core/context";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { readiness } from "../../../../mail";
import { reputationFigures } from "../../../../mail";
import { MailReadiness } from "../../../../mail";
import { requireCustomer } from "../../../customers";
import { CustomerIdParam } from "../../../customers/schema";
import type { AdminRouter } from "../../shared";
import { tags } from "../../../mail/provider/schema";

export function registerGetCustomerMailReadiness(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "get",
        path: "/v1/customers/{id}/mail/readiness",
        operationId: "getCustomerMailReadiness",
        tags,
        summary: "Check whether a customer can send",
        description:
          "The spec's precondition for sending, item by item: `server_token`, `transactional_stream`, `broadcast_stream`, `verified_senders` (at least one address or domain), `default_newsletter_from` (set and verified), `newsletter_footer` and `transactional_footer` (a frame is set), then the warnings: `postmark_check` (no Postmark account token: \"not checked with Postmark\"; or the last check failed), `return_path` (the newsletter sender's domain has no verified Return-Path at Postmark, with the CNAME to publish) and `complaint_rate` (the 30-day newsletter complaint rate is above the guard's threshold). With an account token and a check answered, senders count only when Postmark confirms them: a confirmed sender signature, or DKIM verified on the domain; the message then names the DKIM record to publish. Each item is `green`, `warning` or `red` with what to do. While any item is red, the customer's sends answer 403 `forbidden` with `details.missing` naming the red items; warnings do not block.",
        request: { params: CustomerIdParam },
        responses: { 200: { description: "The readiness items.", content: json(envelope(MailReadiness)) }, ...errorResponses("admin", [401, 404, 422]) },
      },
      { target: ["customer"] },
    ),
    async (c) => {
      const customer = await requireCustomer(deps.db, c.req.valid("param").id);
      const figures = await reputationFigures(deps.db, customer.id, deps.clock.now());
      const items = await readiness(deps.db, customer.id, {
        complaintRate: figures.newsletter.complaint_rate,
        threshold: figures.thresholds.complaint_rate,
        outcomes: figures.newsletter.outcomes,
      });
      return c.json({ data: { ready: items.every((i) => i.status !== "red"), items }, request_id: c.get("requestId") }, 200);
    },
  );
}
