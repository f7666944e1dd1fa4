import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import { json } from "../../../core/json";
import { errorResponses, pagedEnvelope } from "../../../core/openapi";
import { cursorQuery, decodeCursor, limitQuery } from "../../../core/pagination";
import { serviceRoute } from "../../../core/route";
import type { MailDeps } from "../../deps";
import { listTemplates } from "../../templates/service";
import { Template } from "../../templates/schema";

export function registerListTemplates(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  router.openapi(
    serviceRoute(deps, "read", {
      method: "get",
      path: "/v1/templates",
      operationId: "listTemplates",
      tags: ["Templates"],
      summary: "List templates",
      description: "This account's templates with their parameter contracts, newest first, cursor-paginated.",
      request: { query: z.object({ limit: limitQuery(100, 25), ...cursorQuery }) },
      responses: { 200: { description: "A page of templates.", content: json(pagedEnvelope(Template)) }, ...errorResponses("mail", [400, 401, 422, 429, 500]) },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const page = await listTemplates(deps.db, c.get("principal").customerId, { limit: query.limit, after: decodeCursor(query.after) });
      return c.json({ data: page.items, paging: page.paging, request_id: c.get("requestId") }, 200);
    },
  );
}
