import { z } from "@hono/zod-openapi";
import { adminRoute } from "../../access";
import type { CoreDeps } from "../../../core/context";
import { NotFoundError } from "../../../core/errors";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { getOperator } from "../../operators/accounts";
import { listOperatorTokens } from "../../operators/tokens";
import type { AdminRouter } from "../shared";
import { OperatorIdParam, OperatorToken, tags } from "../../operators/schema";

export function registerListOperatorTokens(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "owner",
      {
        method: "get",
        path: "/v1/operators/{id}/tokens",
        operationId: "listOperatorTokens",
        tags,
        summary: "List an operator's API tokens",
        description: "Newest first, revoked ones included; never the tokens themselves.",
        request: { params: OperatorIdParam },
        responses: { 200: { description: "The tokens.", content: json(envelope(z.array(OperatorToken))) }, ...errorResponses("admin", [401, 404, 422]) },
      },
      { target: ["operator"] },
    ),
    async (c) => {
      const { id } = c.req.valid("param");
      if (!(await getOperator(deps.db, id))) throw new NotFoundError("Operator");
      return c.json({ data: await listOperatorTokens(deps.db, id), request_id: c.get("requestId") }, 200);
    },
  );
}
