import { adminRoute } from "../../access";
import { z } from "@hono/zod-openapi";
import type { CoreDeps } from "../../../core/context";
import { json } from "../../../core/json";
import { errorResponses, pagedEnvelope } from "../../../core/openapi";
import { cursorQuery, decodeCursor, limitQuery } from "../../../core/pagination";
import { listCustomers } from "../../customers";
import type { AdminRouter } from "../shared";
import { Customer } from "./schema";

export function registerListCustomers(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute("support", {
      method: "get",
      path: "/v1/customers",
      operationId: "listCustomers",
      tags: ["Customers"],
      summary: "List customers",
      description: "Chronological, cursor-paginated.",
      request: { query: z.object({ limit: limitQuery(100, 25), ...cursorQuery }) },
      responses: { 200: { description: "A page of customers.", content: json(pagedEnvelope(Customer)) }, ...errorResponses("admin", [400, 401]) },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const page = await listCustomers(deps.db, { limit: query.limit, after: decodeCursor(query.after) });
      return c.json({ data: page.items, paging: page.paging, request_id: c.get("requestId") }, 200);
    },
  );
}
