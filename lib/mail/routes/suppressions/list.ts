import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import { json } from "../../../core/json";
import { errorResponses, pagedEnvelope } from "../../../core/openapi";
import { decodeCursor } from "../../../core/pagination";
import { serviceRoute } from "../../../core/route";
import type { MailDeps } from "../../deps";
import { listSuppressionChanges } from "../../suppressions/mirror";
import { SuppressionEntry, FeedQuery } from "../../suppressions/schema";

export function registerListSuppressionChanges(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  router.openapi(
    serviceRoute(deps, "read", {
      method: "get",
      path: "/v1/suppressions",
      operationId: "listSuppressionChanges",
      tags: ["Suppressions"],
      summary: "Suppression changes since a time",
      description:
        "The change feed of the suppression mirror for one stream: every address whose suppression was set or lifted at or after `since`, in its latest state, ordered by `(changed_at, id)`. `changed_at` is strictly increasing within a feed and assigned in commit order, so a reader that passes the last entry's `changed_at` as `since` never misses an entry (it may see that last entry once more) and a reader that follows `paging.after` sees each entry once. An address that changes again moves to the end of the feed. Entries with `active=false` (lifted) must be applied too. Provider changes older than the last one mirrored for an address (late webhook retries) are ignored, and a lift for an address the feed never showed as suppressed adds no entry: there is nothing to apply, and the suppression it lifted is ignored if it arrives late. The mirror is as current as the last Postmark webhook (normally seconds). `since` missing answers 400, malformed 422; `limit` 1–500 (default 100).",
      request: { query: FeedQuery },
      responses: {
        200: { description: "A page of changes.", content: json(pagedEnvelope(SuppressionEntry)) },
        ...errorResponses("mail", [400, 401, 422, 429, 500]),
      },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const page = await listSuppressionChanges(deps.db, c.get("principal").customerId, {
        stream: query.stream,
        since: new Date(query.since),
        limit: query.limit,
        after: decodeCursor(query.after),
      });
      return c.json({ data: page.items, paging: page.paging, request_id: c.get("requestId") }, 200);
    },
  );
}
