import { adminRoute } from "../../../access";
import type { CoreDeps } from "../../../../core/context";
import { json } from "../../../../core/json";
import { errorResponses, pagedEnvelope } from "../../../../core/openapi";
import { searchMessagesByQuery } from "../../../../mail";
import { requireCustomer } from "../../../customers";
import { CustomerIdParam } from "../../../customers/schema";
import type { AdminRouter } from "../../shared";
import { MessageSearchQuery } from "../../../../mail";
import { MailMessageSummary, tags } from "../../../mail/messages/schema";

export function registerListCustomerMessages(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "get",
        path: "/v1/customers/{id}/mail/messages",
        operationId: "listCustomerMessages",
        tags,
        summary: "Search a customer's messages",
        description:
          "Transactional mail and send-job messages of the customer, newest first (by `created_at`, then id), cursor-paginated (`after` from `paging.after`; opaque, stable while new messages arrive). Filters combine: `recipient` (through the stored address hash, so it works after a job's addresses were deleted), `status`, `kind`, `send_job_id`, `template_id`, and `since`/`until` on the creation time. No address is ever returned. `since` not before `until`, else 422.",
        request: { params: CustomerIdParam, query: MessageSearchQuery },
        responses: {
          200: { description: "A page of messages.", content: json(pagedEnvelope(MailMessageSummary)) },
          ...errorResponses("admin", [400, 401, 404, 422]),
        },
      },
      { target: ["customer"] },
    ),
    async (c) => {
      const { id } = c.req.valid("param");
      const query = c.req.valid("query");
      await requireCustomer(deps.db, id);
      const page = await searchMessagesByQuery(deps.db, id, query);
      return c.json({ data: page.items, paging: page.paging, request_id: c.get("requestId") }, 200);
    },
  );
}
