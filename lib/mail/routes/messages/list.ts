import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import { json } from "../../../core/json";
import { errorResponses, pagedEnvelope } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import type { MailDeps } from "../../deps";
import { searchMessagesByQuery } from "../../messages/search";
import { MessageSearchQuery, MessageSummary } from "../../messages/schema";

export function registerListMessages(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  router.openapi(
    serviceRoute(deps, "read", {
      method: "get",
      path: "/v1/messages",
      operationId: "listMessages",
      tags: ["Messages"],
      summary: "Search messages",
      description:
        "This account's transactional mail and send-job messages, newest first (by `created_at`, then id), cursor-paginated (`after` from `paging.after`; opaque, stable while new messages arrive). Filters combine: `recipient` answers \"did our mail to anna@… arrive?\" through the stored address hash, so it works after a job's addresses were deleted; `status`, `kind`, `send_job_id`, `template_id`, and `since`/`until` on the creation time (`since` before `until`, else 422). No address is ever returned; `GET /v1/messages/{id}` gives one message's history.",
      request: { query: MessageSearchQuery },
      responses: {
        200: { description: "A page of messages.", content: json(pagedEnvelope(MessageSummary)) },
        ...errorResponses("mail", [400, 401, 422, 429, 500]),
      },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const page = await searchMessagesByQuery(deps.db, c.get("principal").customerId, query);
      // The provider's message id stays an operator's detail.
      const items = page.items.map(({ provider_message_id: _, ...item }) => item);
      return c.json({ data: items, paging: page.paging, request_id: c.get("requestId") }, 200);
    },
  );
}
