import { adminRoute } from "../../../access";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { ReactivateRequest, ReactivateResult } from "../../../../mail";
import { reactivateSuppression } from "../../../../mail";
import { requireCustomer } from "../../../customers";
import type { AdminDeps } from "../../../deps";
import { CustomerIdParam } from "../../../customers/schema";
import type { AdminRouter } from "../../shared";
import { tags } from "../../../mail/suppressions/schema";

export function registerReactivateCustomerSuppression(router: AdminRouter, deps: AdminDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "post",
        path: "/v1/customers/{id}/mail/suppressions/reactivate",
        operationId: "reactivateCustomerSuppression",
        tags,
        summary: "Lift a customer's suppression",
        description: `As \`POST /mail/v1/suppressions/reactivate\` for that customer (only after the recipient opted in again): Postmark deletes the suppression on the stream, then the mirror lifts it and the customer's feed and \`suppression.changed\` webhook show it. An address that is not suppressed answers \`reactivated: true\` with no effect. A spam complaint is never lifted: 409 \`conflict\` with \`details.reason\` \`spam_complaint\`.`,
        request: { params: CustomerIdParam, body: { required: true, content: json(ReactivateRequest) } },
        responses: {
          200: { description: "Lifted (or not suppressed).", content: json(envelope(ReactivateResult)) },
          ...errorResponses("admin", [400, 401, 403, 404, 409, 422, 500]),
        },
      },
      { target: ["customer"], supportMayWrite: true },
    ),
    async (c) => {
      const { id } = c.req.valid("param");
      await requireCustomer(deps.db, id);
      return c.json({ data: await reactivateSuppression(deps.mail, id, c.req.valid("json")), request_id: c.get("requestId") }, 200);
    },
  );
}
