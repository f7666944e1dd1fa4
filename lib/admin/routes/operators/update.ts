import { adminRoute } from "../../access";
import type { CoreDeps } from "../../../core/context";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { updateOperator } from "../../operators/accounts";
import { recentAuthSentence, requireRecentAuth } from "../../reauthentication";
import type { AdminRouter } from "../shared";
import { Operator, OperatorIdParam, tags, UpdateOperator } from "../../operators/schema";

export function registerUpdateOperator(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "owner",
      {
        method: "patch",
        path: "/v1/operators/{id}",
        operationId: "updateOperator",
        tags,
        summary: "Change an operator's role, password or enabled state",
        description:
          "Partial update. A new role applies from the operator's next request (sessions and tokens included). Disabling ends the operator's console sessions and revokes their API tokens at once. The last enabled owner can be neither demoted nor disabled (409, `details.reason: \"last_owner\"`). Making an operator owner is sensitive: " +
          recentAuthSentence(),
        request: { params: OperatorIdParam, body: { required: true, content: json(UpdateOperator) } },
        responses: { 200: { description: "The operator.", content: json(envelope(Operator)) }, ...errorResponses("admin", [400, 401, 403, 404, 409, 422]) },
      },
      { target: ["operator"] },
    ),
    async (c) => {
      const change = c.req.valid("json");
      if (change.role === "owner") requireRecentAuth(deps, c.get("operator"), "Making an operator owner");
      const operator = await updateOperator(deps.db, deps.clock, c.req.valid("param").id, change);
      return c.json({ data: operator, request_id: c.get("requestId") }, 200);
    },
  );
}
