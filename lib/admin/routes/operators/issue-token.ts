import { adminRoute } from "../../access";
import type { CoreDeps } from "../../../core/context";
import { ConflictError, NotFoundError } from "../../../core/errors";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { getOperator } from "../../operators/accounts";
import { issueOperatorToken } from "../../operators/tokens";
import type { AdminRouter } from "../shared";
import { CreateOperatorToken, IssuedOperatorToken, OperatorIdParam, tags } from "../../operators/schema";

export function registerIssueOperatorToken(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "owner",
      {
        method: "post",
        path: "/v1/operators/{id}/tokens",
        operationId: "issueOperatorToken",
        tags,
        summary: "Make an API token for an operator",
        description:
          'Returns the token once (`op_live_…`); only its SHA-256 hash is stored. It acts as that operator with their current role. A disabled operator gets none (409, `details.reason: "operator_disabled"`).',
        request: { params: OperatorIdParam, body: { required: true, content: json(CreateOperatorToken) } },
        responses: {
          201: { description: "The token, shown once.", content: json(envelope(IssuedOperatorToken)) },
          ...errorResponses("admin", [400, 401, 404, 409, 422]),
        },
      },
      { target: ["operator"], creates: "token" },
    ),
    async (c) => {
      const operator = await getOperator(deps.db, c.req.valid("param").id);
      if (!operator) throw new NotFoundError("Operator");
      if (operator.disabled_at) throw new ConflictError("This operator is disabled.", { reason: "operator_disabled" });
      return c.json({ data: await issueOperatorToken(deps.db, operator.id, c.req.valid("json").label), request_id: c.get("requestId") }, 201);
    },
  );
}
