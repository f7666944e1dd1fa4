import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import { ValidationError } from "../../../core/errors";
import { json } from "../../../core/json";
import { errorResponses, pagedEnvelope } from "../../../core/openapi";
import { decodeCursor } from "../../../core/pagination";
import { serviceRoute } from "../../../core/route";
import type { MailDeps } from "../../deps";
import { searchMessages } from "../../messages/search";
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
      const since = query.since ? new Date(query.since) : undefined;
      const until = query.until ? new Date(query.until) : undefined;
      if (since && until && since >= until)
        throw new ValidationError("`since` must be before `until`.", [{ path: "since", message: "Must be before `until`." }]);
      const page = await searchMessages(deps.db, c.get("principal").customerId, {
        recipient: query.recipient,
        status: query.status,
        kind: query.kind,
        sendJobId: query.send_job_id,
        templateId: query.template_id,
        since,
        until,
        limit: query.limit,
        after: decodeCursor(query.after),
      });
      // The provider's message id stays an operator's detail.
      const items = page.items.map(({ provider_message_id: _, ...item }) => item);
      return c.json({ data: items, paging: page.paging, request_id: c.get("requestId") }, 200);
    },
  );
}
