import { adminRoute } from "../../../access";
import type { AdsDeps } from "../../../../ads";
import { listAdsForReview } from "../../../../ads";
import { AdminAd, AdReviewQuery } from "../../../../ads";
import { json } from "../../../../core/json";
import { errorResponses, pagedEnvelope } from "../../../../core/openapi";
import { decodeCursor } from "../../../../core/pagination";
import { requireCustomer } from "../../../customers";
import { CustomerIdParam } from "../../../customers/schema";
import type { AdminRouter } from "../../shared";
import { tags } from "../../../ads/review/schema";

export function registerListCustomerAds(router: AdminRouter, deps: AdsDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "get",
        path: "/v1/customers/{id}/ads/ads",
        operationId: "listCustomerAds",
        tags,
        summary: "List a customer's ads with their review state",
        description:
          "The customer's ads as `GET /ads/v1/ads` shows them (cached `effective_status`, review feedback in `disapproval_reason`), plus the ad set's name and state, the platform's issues while `WITH_ISSUES`, and the latest change of the effective status. Newest first (by `created_at`, then id), cursor-paginated (`after` from `paging.after`). Filters combine: `status`, `effective_status` (e.g. `DISAPPROVED`), `adset_id` (another customer's ad set finds nothing). From our records only; the platform is not called (the status poll and the platform's webhooks keep them current).",
        request: { params: CustomerIdParam, query: AdReviewQuery },
        responses: {
          200: { description: "A page of ads.", content: json(pagedEnvelope(AdminAd)) },
          ...errorResponses("admin", [400, 401, 404, 422]),
        },
      },
      { target: ["customer"] },
    ),
    async (c) => {
      const { id } = c.req.valid("param");
      const query = c.req.valid("query");
      await requireCustomer(deps.db, id);
      const page = await listAdsForReview(deps.db, id, {
        status: query.status,
        effectiveStatus: query.effective_status,
        adSetId: query.adset_id,
        limit: query.limit,
        after: decodeCursor(query.after),
      });
      return c.json({ data: page.items, paging: page.paging, request_id: c.get("requestId") }, 200);
    },
  );
}
