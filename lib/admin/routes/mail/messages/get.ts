import { adminRoute } from "../../../access";
import type { CoreDeps } from "../../../../core/context";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { getMessageDetail } from "../../../../mail";
import { requireCustomer } from "../../../customers";
import type { AdminRouter } from "../../shared";
import { MailMessageDetail, MessageParams, tags } from "../../../mail/messages/schema";

export function registerGetCustomerMessage(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "get",
        path: "/v1/customers/{id}/mail/messages/{messageId}",
        operationId: "getCustomerMessage",
        tags,
        summary: "Get a customer's message with its timeline",
        description:
          "As `GET /mail/v1/messages/{id}` for that customer, plus Postmark's message id, the hand-overs to Postmark and a timeline (our steps, then the provider's events). A message of another customer answers 404. No recipient address.",
        request: { params: MessageParams },
        responses: { 200: { description: "The message.", content: json(envelope(MailMessageDetail)) }, ...errorResponses("admin", [401, 404, 422]) },
      },
      { target: ["customer", "message"] },
    ),
    async (c) => {
      const { id, messageId } = c.req.valid("param");
      await requireCustomer(deps.db, id);
      return c.json({ data: await getMessageDetail(deps.db, id, messageId, deps.clock.now()), request_id: c.get("requestId") }, 200);
    },
  );
}
