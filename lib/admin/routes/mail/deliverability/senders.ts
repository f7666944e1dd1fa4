import { adminRoute } from "../../../access";
import type { AdminDeps } from "../../../deps";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { checkSenders, senderChecksView } from "../../../../mail";
import { SenderChecks } from "../../../../mail";
import { requireCustomer } from "../../../customers";
import { CustomerIdParam } from "../../../customers/schema";
import type { AdminRouter } from "../../shared";
import { tags } from "../../../mail/deliverability/schema";

export function registerSenderCheckRoutes(router: AdminRouter, deps: AdminDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "get",
        path: "/v1/customers/{id}/mail/senders",
        operationId: "getCustomerMailSenders",
        tags,
        summary: "Get a customer's senders and domains as Postmark reports them",
        description:
          "Each configured sender address (and default sender) and each domain, with what Postmark's Account API said at the last check: sender signature confirmed, domain DKIM and Return-Path verified, the DNS records still to publish (host, type, value) and when it was checked. Checks run hourly, right after the provider configuration changes, and on `POST …/senders/check`. Without a Postmark account token (`account_token` on the provider configuration) the lists are empty and `account_token_set` is false.",
        request: { params: CustomerIdParam },
        responses: { 200: { description: "The last check.", content: json(envelope(SenderChecks)) }, ...errorResponses("admin", [401, 404, 422]) },
      },
      { target: ["customer"] },
    ),
    async (c) => {
      const customer = await requireCustomer(deps.db, c.req.valid("param").id);
      return c.json({ data: await senderChecksView(deps.db, customer.id), request_id: c.get("requestId") }, 200);
    },
  );

  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "post",
        path: "/v1/customers/{id}/mail/senders/check",
        operationId: "checkCustomerMailSenders",
        tags,
        summary: "Check a customer's senders with Postmark again",
        description:
          '"Check again": asks Postmark to look up each domain\'s DKIM and Return-Path records once more (Account API `PUT /domains/{id}/verifyDKIM` and `/verifyReturnPath`), then reads the sender signatures and domains and stores the result. Readiness follows at once. When Postmark cannot be reached the answer is still 200, with `error` set and the previous result kept. Without an account token nothing is asked.',
        request: { params: CustomerIdParam },
        responses: { 200: { description: "The check's result.", content: json(envelope(SenderChecks)) }, ...errorResponses("admin", [401, 404, 422]) },
      },
      { target: ["customer"], supportMayWrite: true },
    ),
    async (c) => {
      const customer = await requireCustomer(deps.db, c.req.valid("param").id);
      const view = await checkSenders({ ...deps, postmarkAccount: deps.mail.postmarkAccount }, customer.id, { verify: true });
      return c.json({ data: view, request_id: c.get("requestId") }, 200);
    },
  );
}
