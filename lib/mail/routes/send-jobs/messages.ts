import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import { errorResponses, pagedEnvelope } from "../../../core/openapi";
import { decodeCursor } from "../../../core/pagination";
import { serviceRoute } from "../../../core/route";
import type { MailDeps } from "../../deps";
import { getSendJobRow } from "../../send-jobs/model";
import { listJobMessages } from "../../send-jobs/statistics";
import { JobMessage, MessagesQuery, SendJobIdParam } from "../../send-jobs/schema";
import { json } from "../../../core/json";

export function registerListSendJobMessages(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  const route = serviceRoute(deps, "read", {
    method: "get",
    path: "/v1/send-jobs/{id}/messages",
    operationId: "listSendJobMessages",
    tags: ["Send jobs"],
    summary: "List a job's messages",
    description:
      "The job's messages in creation order, cursor-paginated (`limit` up to 500); `status` filters (e.g. `bounced`). Items carry the message id, state, bounce type, error and timestamps, never the address.",
    request: { params: SendJobIdParam, query: MessagesQuery },
    responses: {
      200: { description: "A page of messages.", content: json(pagedEnvelope(JobMessage)) },
      ...errorResponses("mail", [400, 401, 404, 422, 429, 500]),
    },
  });
  router.openapi(route, async (c) => {
    const customerId = c.get("principal").customerId;
    const job = await getSendJobRow(deps.db, customerId, c.req.valid("param").id);
    const query = c.req.valid("query");
    const page = await listJobMessages(deps.db, customerId, job.id, { status: query.status, limit: query.limit, after: decodeCursor(query.after) });
    return c.json({ data: page.items, paging: page.paging, request_id: c.get("requestId") }, 200);
  });
}
