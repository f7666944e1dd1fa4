import { adminRoute } from "../../access";
import type { CoreDeps } from "../../../core/context";
import { NotFoundError } from "../../../core/errors";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { getOperator } from "../../operators/accounts";
import type { AdminRouter } from "../shared";
import { Operator, OperatorIdParam, tags } from "../../operators/schema";

export function registerGetOperator(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "owner",
      {
        method: "get",
        path: "/v1/operators/{id}",
        operationId: "getOperator",
        tags,
        summary: "Get an operator account",
        request: { params: OperatorIdParam },
        responses: { 200: { description: "The operator.", content: json(envelope(Operator)) }, ...errorResponses("admin", [401, 404, 422]) },
      },
      { target: ["operator"] },
    ),
    async (c) => {
      const operator = await getOperator(deps.db, c.req.valid("param").id);
      if (!operator) throw new NotFoundError("Operator");
      return c.json({ data: operator, request_id: c.get("requestId") }, 200);
    },
  );
}
