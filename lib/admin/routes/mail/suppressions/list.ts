import { z } from "@hono/zod-openapi";
import { adminRoute } from "../../../access";
import type { CoreDeps } from "../../../../core/context";
import { json } from "../../../../core/json";
import { errorResponses, pagedEnvelope } from "../../../../core/openapi";
import { decodeCursor } from "../../../../core/pagination";
import { SuppressionEntry } from "../../../../mail";
import { listSuppressions, suppressionsCsv } from "../../../../mail";
import { requireCustomer } from "../../../customers";
import { CustomerIdParam } from "../../../customers/schema";
import type { AdminRouter } from "../../shared";
import { CSV_DESCRIPTION, SuppressionListQuery, tags } from "../../../mail/suppressions/schema";

export function registerListCustomerSuppressions(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "get",
        path: "/v1/customers/{id}/mail/suppressions",
        operationId: "listCustomerSuppressions",
        tags,
        summary: "List a customer's suppressions",
        description: `The customer's suppression mirror for one stream: one entry per address in its latest state (the entries of \`GET /mail/v1/suppressions\`), newest change first, cursor-paginated (\`after\` from \`paging.after\`). Filters: \`reason\`, \`active\`, \`changed_since\`. With \`Accept: text/csv\` or \`format=csv\` the answer is the whole filtered list as a CSV download instead. ${CSV_DESCRIPTION}`,
        request: { params: CustomerIdParam, query: SuppressionListQuery },
        responses: {
          200: {
            description: "A page of entries, or the CSV export.",
            content: {
              ...json(pagedEnvelope(SuppressionEntry)),
              "text/csv": {
                schema: z.string().openapi({
                  example:
                    "email,stream,active,reason,reactivatable,changed_at\r\njane@example.com,newsletter,true,unsubscribe,true,2026-03-01T10:00:00.000Z\r\n",
                }),
              },
            },
          },
          ...errorResponses("admin", [400, 401, 404, 422]),
        },
      },
      { target: ["customer"] },
    ),
    async (c) => {
      const { id } = c.req.valid("param");
      const query = c.req.valid("query");
      await requireCustomer(deps.db, id);
      const filter = {
        stream: query.stream,
        reason: query.reason,
        active: query.active === undefined ? undefined : query.active === "true",
        changedSince: query.changed_since ? new Date(query.changed_since) : undefined,
      };
      const csv = query.format === "csv" || (query.format === undefined && /\btext\/csv\b/i.test(c.req.header("accept") ?? ""));
      if (csv) {
        c.header("Content-Type", "text/csv; charset=utf-8");
        c.header("Content-Disposition", `attachment; filename="suppressions-${filter.stream}-${id}.csv"`);
        c.header("Cache-Control", "no-store");
        return c.body(suppressionsCsv(deps.db, id, filter), 200) as never;
      }
      const page = await listSuppressions(deps.db, id, filter, { limit: query.limit, after: decodeCursor(query.after) });
      return c.json({ data: page.items, paging: page.paging, request_id: c.get("requestId") }, 200);
    },
  );
}
