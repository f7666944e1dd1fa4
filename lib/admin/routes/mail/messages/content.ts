import { adminRoute } from "../../../access";
import type { CoreDeps } from "../../../../core/context";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { getMessageContent } from "../../../../mail";
import { requireCustomer } from "../../../customers";
import type { AdminRouter } from "../../shared";
import { MailMessageContent, MessageParams, tags } from "../../../mail/messages/schema";

export function registerGetCustomerMessageContent(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "get",
        path: "/v1/customers/{id}/mail/messages/{messageId}/content",
        operationId: "getCustomerMessageContent",
        tags,
        summary: "Get what a customer's message carried",
        description:
          "The content of one message for the message page: transactional mail as sent to Postmark (HTML body and its text part, kept 45 days, the recipient's address replaced; the template's version then), a newsletter as its job's template with each recipient value shown as its `{{placeholder}}` (recipients' values are not kept). `source` says which, `note` says it in words. A message of another customer answers 404.",
        request: { params: MessageParams },
        responses: { 200: { description: "The content.", content: json(envelope(MailMessageContent)) }, ...errorResponses("admin", [401, 404, 422]) },
      },
      { target: ["customer", "message"] },
    ),
    async (c) => {
      const { id, messageId } = c.req.valid("param");
      await requireCustomer(deps.db, id);
      return c.json({ data: await getMessageContent(deps.db, id, messageId, deps.clock.now()), request_id: c.get("requestId") }, 200);
    },
  );
}
