import { adminRoute } from "../../access";
import { z } from "@hono/zod-openapi";
import type { CoreDeps } from "../../../core/context";
import { json } from "../../../core/json";
import { errorResponses, pagedEnvelope } from "../../../core/openapi";
import { cursorQuery, limitQuery } from "../../../core/pagination";
import { customerSorts, listCustomers } from "../../customers";
import type { AdminRouter } from "../shared";
import { Customer } from "../../customers/schema";

export function registerListCustomers(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(deps, "support", {
      method: "get",
      path: "/v1/customers",
      operationId: "listCustomers",
      tags: ["Customers"],
      summary: "List customers",
      description:
        "Searched and sorted on the server, cursor-paginated. `q` matches a part of the name (case-insensitive) or the start of the id. `sort` orders by `created_at` (default, oldest first) or `name` (case-insensitive); a leading `-` reverses; the id breaks ties. Keep `q` and `sort` while following `paging.after`: a cursor of another sort answers 400.",
      request: {
        query: z.object({
          q: z.string().max(200).optional().openapi({ description: "A part of the name, or the start of the id.", example: "acme" }),
          sort: z.enum(customerSorts).default("created_at").openapi({ description: "Sort order; `-` reverses.", example: "name" }),
          limit: limitQuery(100, 25),
          ...cursorQuery,
        }),
      },
      responses: { 200: { description: "A page of customers.", content: json(pagedEnvelope(Customer)) }, ...errorResponses("admin", [400, 401]) },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const page = await listCustomers(deps.db, deps.clock.now(), { limit: query.limit, after: query.after, q: query.q, sort: query.sort });
      return c.json({ data: page.items, paging: page.paging, request_id: c.get("requestId") }, 200);
    },
  );
}
