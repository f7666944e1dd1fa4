import { z } from "@hono/zod-openapi";
import { adminRoute } from "../../access";
import { listAuditEntries } from "../../audit/list";
import { AuditEntry, operatorIdExample } from "../../audit/schema";
import type { CoreDeps } from "../../../core/context";
import { json } from "../../../core/json";
import { errorResponses, pagedEnvelope } from "../../../core/openapi";
import { cursorQuery, decodeCursor, limitQuery } from "../../../core/pagination";
import type { AdminRouter } from "../shared";

const isoTime = (description: string) => z.iso.datetime({ offset: true }).optional().openapi({ description, example: "2026-03-01T00:00:00Z" });

export function registerListAuditLog(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(deps, "support", {
      method: "get",
      path: "/v1/audit-log",
      operationId: "listAuditLog",
      tags: ["Audit log"],
      summary: "Read the audit log",
      description:
        "Every admin write (API, console, CLI), whatever its answer, every break-glass request, and every console sign-in, failed sign-in and sign-out; newest first, cursor-paginated. Entries cannot be changed or deleted through any API (the database refuses it too); they are kept 400 days (`audit-log-retention` cron).",
      request: {
        query: z.object({
          customer_id: z.uuid().optional().openapi({ description: "Only entries about this customer.", example: "3f0e8a52-6f1e-4c1d-9a43-0d2f1b7c5e11" }),
          customer_name: z.string().trim().min(1).max(200).optional().openapi({
            description:
              "Only entries about the customer of this name (as it is now, any case; every customer of that name if several share it). A name no customer has gives an empty page. Combines with `customer_id`.",
            example: "Acme GmbH",
          }),
          operator_id: z.uuid().optional().openapi({ description: "Only entries made by this operator (session or token).", example: operatorIdExample }),
          operator_email: z.string().trim().min(1).max(320).optional().openapi({
            description:
              "Only entries made by the operator with this e-mail (as it is now, any case), by session or token. An e-mail no operator has gives an empty page. Combines with `operator_id`.",
            example: "ops@example.com",
          }),
          operation: z.string().max(100).optional().openapi({ description: "Only this operationId.", example: "updateCustomer" }),
          from: isoTime("Entries at or after this time."),
          to: isoTime("Entries before this time."),
          limit: limitQuery(100, 50),
          ...cursorQuery,
        }),
      },
      responses: { 200: { description: "A page of entries.", content: json(pagedEnvelope(AuditEntry)) }, ...errorResponses("admin", [400, 401, 422]) },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const page = await listAuditEntries(
        deps.db,
        {
          customerId: q.customer_id,
          customerName: q.customer_name,
          operatorId: q.operator_id,
          operatorEmail: q.operator_email,
          operationId: q.operation,
          from: q.from ? new Date(q.from) : undefined,
          to: q.to ? new Date(q.to) : undefined,
        },
        { limit: q.limit, after: decodeCursor(q.after) },
      );
      return c.json({ data: page.items, paging: page.paging, request_id: c.get("requestId") }, 200);
    },
  );
}
