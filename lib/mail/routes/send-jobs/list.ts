import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import { errorResponses, pagedEnvelope } from "../../../core/openapi";
import { decodeCursor } from "../../../core/pagination";
import { serviceRoute } from "../../../core/route";
import type { MailDeps } from "../../deps";
import { listSendJobs } from "../../send-jobs/service";
import { ListQuery, SendJob } from "../../send-jobs/schema";
import { json } from "../../../core/json";

export function registerListSendJobs(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  const route = serviceRoute(deps, "read", {
    method: "get",
    path: "/v1/send-jobs",
    operationId: "listSendJobs",
    tags: ["Send jobs"],
    summary: "List send jobs",
    description:
      "This account's jobs, newest first, cursor-paginated; `status` filters. Items carry the counters but not `stats`/`timeline` (read one job for those).",
    request: { query: ListQuery },
    responses: {
      200: { description: "A page of jobs.", content: json(pagedEnvelope(SendJob)) },
      ...errorResponses("mail", [400, 401, 422, 429, 500]),
    },
  });
  router.openapi(route, async (c) => {
    const query = c.req.valid("query");
    const page = await listSendJobs(deps.db, c.get("principal").customerId, { status: query.status, limit: query.limit, after: decodeCursor(query.after) });
    return c.json({ data: page.items, paging: page.paging, request_id: c.get("requestId") }, 200);
  });
}
