import { adminRoute } from "../../../access";
import type { AdsDeps } from "../../../../ads";
import { listAdSetsForReview } from "../../../../ads";
import { AdminAdSet, AdSetReviewQuery } from "../../../../ads";
import { json } from "../../../../core/json";
import { errorResponses, pagedEnvelope } from "../../../../core/openapi";
import { decodeCursor } from "../../../../core/pagination";
import { requireCustomer } from "../../../customers";
import { CustomerIdParam } from "../../../customers/schema";
import type { AdminRouter } from "../../shared";
import { tags } from "../../../ads/review/schema";

export function registerListCustomerAdSets(router: AdminRouter, deps: AdsDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "get",
        path: "/v1/customers/{id}/ads/adsets",
        operationId: "listCustomerAdSets",
        tags,
        summary: "List a customer's ad sets with their ads' review state",
        description:
          "The customer's ad sets as `GET /ads/v1/adsets` shows them, newest first (by `created_at`, then id), cursor-paginated (`after` from `paging.after`), each with its ads counted per cached effective status. Filters combine: `status`, `target`. From our records only; the platform is not called.",
        request: { params: CustomerIdParam, query: AdSetReviewQuery },
        responses: {
          200: { description: "A page of ad sets.", content: json(pagedEnvelope(AdminAdSet)) },
          ...errorResponses("admin", [400, 401, 404, 422]),
        },
      },
      { target: ["customer"] },
    ),
    async (c) => {
      const { id } = c.req.valid("param");
      const query = c.req.valid("query");
      await requireCustomer(deps.db, id);
      const page = await listAdSetsForReview(deps.db, id, { status: query.status, target: query.target, limit: query.limit, after: decodeCursor(query.after) });
      return c.json({ data: page.items, paging: page.paging, request_id: c.get("requestId") }, 200);
    },
  );
}
