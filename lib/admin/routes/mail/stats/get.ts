import { adminRoute } from "../../../access";
import type { CoreDeps } from "../../../../core/context";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { mailStats } from "../../../../mail";
import { requireCustomer } from "../../../customers";
import { CustomerIdParam } from "../../../customers/schema";
import type { AdminRouter } from "../../shared";
import { MailStats, MailStatsQuery, tags } from "../../../mail/stats/schema";

export function registerGetCustomerMailStats(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "get",
        path: "/v1/customers/{id}/mail/stats",
        operationId: "getCustomerMailStats",
        tags,
        summary: "A customer's mail as time series",
        description:
          "Per UTC hour or day: messages accepted by Postmark (sent), delivered, bounced, complained about, first opened and first clicked; each series counts messages by their own time field (`accepted_at`, `delivered_at`, `bounced_at`, `complained_at`, `first_opened_at`, `first_clicked_at`), which are kept for good, so old buckets do not shrink when the 90-day event history is pruned; opens and clicks are unique per message (a job's detail has the totals). Both modes (`live` and `sandbox`) count. Every bucket of the range is present, empty ones as zeros. `send_job_id` limits the series to one job. A range that is empty, reversed (`from` not before `to`) or longer than 744 hours / 366 days answers 400 `bad_request` with `details` naming `from`; a malformed value 422.",
        request: { params: CustomerIdParam, query: MailStatsQuery },
        responses: {
          200: { description: "The series.", content: json(envelope(MailStats)) },
          ...errorResponses("admin", [400, 401, 404, 422]),
        },
      },
      { target: ["customer"] },
    ),
    async (c) => {
      const { id } = c.req.valid("param");
      const query = c.req.valid("query");
      await requireCustomer(deps.db, id);
      const stats = await mailStats(
        deps.db,
        id,
        {
          granularity: query.granularity,
          from: query.from ? new Date(query.from) : undefined,
          to: query.to ? new Date(query.to) : undefined,
          sendJobId: query.send_job_id,
        },
        deps.clock.now(),
      );
      return c.json({ data: stats, request_id: c.get("requestId") }, 200);
    },
  );
}
