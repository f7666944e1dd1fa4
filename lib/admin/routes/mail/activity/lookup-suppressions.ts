import { adminRoute } from "../../../access";
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../../core/context";
import { envelope, errorResponses } from "../../../../core/openapi";
import { LookupRequest, LookupResult } from "../../../../mail";
import { lookupSuppressions } from "../../../../mail";
import { requireCustomer } from "../../../customers";
import { json } from "../../../../core/json";
import { CustomerIdParam } from "../../../customers/schema";
import type { CoreDeps } from "../../../../core/context";
import { tags } from "../../../mail/activity/schema";

export function registerLookupCustomerSuppressions(router: OpenAPIHono<AppEnv>, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "post",
        path: "/v1/customers/{id}/mail/suppressions/lookup",
        operationId: "lookupCustomerSuppressions",
        tags,
        summary: "Look addresses up in a customer's suppression mirror",
        description:
          "As `POST /mail/v1/suppressions/lookup` for that customer: one result per address, from the mirror; changes nothing. More than 500 addresses answer 422.",
        request: { params: CustomerIdParam, body: { required: true, content: json(LookupRequest) } },
        responses: {
          200: { description: "One result per address.", content: json(envelope(z.array(LookupResult))) },
          ...errorResponses("admin", [400, 401, 404, 422]),
        },
      },
      { target: ["customer"], reads: true },
    ),
    async (c) => {
      const { id } = c.req.valid("param");
      const body = c.req.valid("json");
      await requireCustomer(deps.db, id);
      return c.json({ data: await lookupSuppressions(deps.db, id, body.stream, body.emails), request_id: c.get("requestId") }, 200);
    },
  );
}
