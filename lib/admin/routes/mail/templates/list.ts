import { adminRoute } from "../../../access";
import { z } from "@hono/zod-openapi";
import type { CoreDeps } from "../../../../core/context";
import { json } from "../../../../core/json";
import { errorResponses, pagedEnvelope } from "../../../../core/openapi";
import { cursorQuery, decodeCursor, limitQuery } from "../../../../core/pagination";
import { listTemplates } from "../../../../mail";
import { requireCustomer } from "../../../customers";
import { CustomerIdParam } from "../../../customers/schema";
import type { AdminRouter } from "../../shared";
import { MailTemplate, tags } from "../../../mail/templates/schema";

export function registerListCustomerMailTemplates(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "get",
        path: "/v1/customers/{id}/mail/templates",
        operationId: "listCustomerMailTemplates",
        tags,
        summary: "List a customer's templates",
        description: "Templates of both origins, newest first, cursor-paginated; deleted builder templates are left out.",
        request: { params: CustomerIdParam, query: z.object({ limit: limitQuery(100, 25), ...cursorQuery }) },
        responses: {
          200: { description: "A page of templates.", content: json(pagedEnvelope(MailTemplate)) },
          ...errorResponses("admin", [400, 401, 404, 422]),
        },
      },
      { target: ["customer"] },
    ),
    async (c) => {
      const customer = await requireCustomer(deps.db, c.req.valid("param").id);
      const query = c.req.valid("query");
      const page = await listTemplates(deps.db, customer.id, { limit: query.limit, after: decodeCursor(query.after) });
      return c.json({ data: page.items, paging: page.paging, request_id: c.get("requestId") }, 200);
    },
  );
}
