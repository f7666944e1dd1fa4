import { adminRoute } from "../../../access";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../../core/context";
import { errorResponses, pagedEnvelope } from "../../../../core/openapi";
import { decodeCursor } from "../../../../core/pagination";
import { ListQuery, SendJob } from "../../../../mail";
import { listSendJobs } from "../../../../mail";
import { requireCustomer } from "../../../customers";
import { json } from "../../../../core/json";
import { CustomerIdParam } from "../../../customers/schema";
import type { CoreDeps } from "../../../../core/context";
import { tags } from "../../../mail/activity/schema";

export function registerListCustomerSendJobs(router: OpenAPIHono<AppEnv>, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "get",
        path: "/v1/customers/{id}/mail/send-jobs",
        operationId: "listCustomerSendJobs",
        tags,
        summary: "List a customer's send jobs",
        description: "As `GET /mail/v1/send-jobs` for that customer: newest first, cursor-paginated, `status` filters; items carry the counters.",
        request: { params: CustomerIdParam, query: ListQuery },
        responses: { 200: { description: "A page of jobs.", content: json(pagedEnvelope(SendJob)) }, ...errorResponses("admin", [400, 401, 404, 422]) },
      },
      { target: ["customer"] },
    ),
    async (c) => {
      const { id } = c.req.valid("param");
      const query = c.req.valid("query");
      await requireCustomer(deps.db, id);
      const page = await listSendJobs(deps.db, id, { status: query.status, limit: query.limit, after: decodeCursor(query.after) });
      return c.json({ data: page.items, paging: page.paging, request_id: c.get("requestId") }, 200);
    },
  );
}
