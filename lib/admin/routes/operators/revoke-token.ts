import { adminRoute } from "../../access";
import type { CoreDeps } from "../../../core/context";
import { NotFoundError } from "../../../core/errors";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { revokeOperatorToken } from "../../operators/tokens";
import type { AdminRouter } from "../shared";
import { OperatorToken, OperatorTokenParams, tags } from "../../operators/schema";

export function registerRevokeOperatorToken(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "owner",
      {
        method: "delete",
        path: "/v1/operators/{id}/tokens/{token_id}",
        operationId: "revokeOperatorToken",
        tags,
        summary: "Revoke an operator's API token",
        description: "The token answers 401 from the next request on. Revoking twice is harmless.",
        request: { params: OperatorTokenParams },
        responses: { 200: { description: "The revoked token.", content: json(envelope(OperatorToken)) }, ...errorResponses("admin", [401, 404, 422]) },
      },
      { target: ["operator", "token"] },
    ),
    async (c) => {
      const { id, token_id } = c.req.valid("param");
      const revoked = await revokeOperatorToken(deps.db, deps.clock, id, token_id);
      if (!revoked) throw new NotFoundError("Operator token");
      return c.json({ data: revoked, request_id: c.get("requestId") }, 200);
    },
  );
}
