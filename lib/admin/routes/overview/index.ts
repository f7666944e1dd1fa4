import { adminRoute } from "../../access";
import type { CoreDeps } from "../../../core/context";
import { ValidationError } from "../../../core/errors";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { readOverview } from "../../overview";
import { search } from "../../search";
import type { AdminRouter } from "../shared";
import { Overview, OverviewQuery, SearchQuery, SearchResults } from "./schema";

const tags = ["Overview and search"];
const MAX_PERIOD_MS = 93 * 86_400_000;

function period(since: string | undefined, until: string | undefined, now: Date): { since?: Date; until?: Date } {
  const from = since ? new Date(since) : undefined;
  const to = until ? new Date(until) : undefined;
  if (from && to && from >= to) throw new ValidationError("`since` must be before `until`.", [{ path: "since", message: "Must be before `until`." }]);
  if (from && (to ?? now).getTime() - from.getTime() > MAX_PERIOD_MS)
    throw new ValidationError("The period is longer than 93 days.", [{ path: "since", message: "At most 93 days before `until`." }]);
  return { since: from, until: to };
}

/** The console's landing page and its search box: aggregates across customers, and one search over every kind. */
export function registerOverviewRoutes(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(deps, "support", {
      method: "get",
      path: "/v1/overview",
      operationId: "getOverview",
      tags,
      summary: "What happens across customers in a period",
      description:
        "Mail created in the period by its state now (totals, rates and per customer), send jobs running, scheduled or paused with their progress, failing webhook endpoints, customers blocked or near their monthly limit, provider health and queue age, ads spend and impressions. Read from aggregates (hourly message counts kept by the database), never from the messages: the period is whole UTC hours, `since` rounded down and `until` (default now) up, and each message figure equals `GET /v1/customers/{id}/mail/messages` (or `GET /v1/search`) with the same `status` and the answer's `since`/`until`. At most 93 days.",
      request: { query: OverviewQuery },
      responses: { 200: { description: "The overview.", content: json(envelope(Overview)) }, ...errorResponses("admin", [400, 401, 422]) },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const now = deps.clock.now();
      const p = period(query.since, query.until, now);
      const data = await readOverview(deps, { since: p.since ?? now, until: p.until ?? now });
      return c.json({ data, request_id: c.get("requestId") }, 200);
    },
  );
  router.openapi(
    adminRoute(deps, "support", {
      method: "get",
      path: "/v1/search",
      operationId: "search",
      tags,
      summary: "Search messages, send jobs, customers, ad sets and ads",
      description:
        "One box for everything, across customers, results grouped by kind (at most `limit` each, newest first). `q` is read as: an address (contains `@`): messages through the stored address hash, so mail is found after its addresses were deleted, and only under the customer that sent it; a UUID: the message, send job, customer, ad set or ad with that id, or the message with that Postmark message id (Postmark's ids are UUIDs); other text: Postmark's message id and the ads platform's ids (exact) and a part of a name (customers, send jobs, ad sets, ads; case-insensitive); empty: the newest messages matching `status` and the period. `status`, `since` and `until` narrow the messages. Every operator role may read every kind. No address is ever returned.",
      request: { query: SearchQuery },
      responses: { 200: { description: "The results by kind.", content: json(envelope(SearchResults)) }, ...errorResponses("admin", [400, 401, 422]) },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const p = period(query.since, query.until, deps.clock.now());
      const data = await search(deps.db, { q: query.q, kind: query.kind, status: query.status, since: p.since, until: p.until, limit: query.limit });
      return c.json({ data, request_id: c.get("requestId") }, 200);
    },
  );
}
