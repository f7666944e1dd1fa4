import { adminRoute } from "../../access";
import type { CoreDeps } from "../../../core/context";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { getOperator } from "../../operators/accounts";
import type { AdminRouter } from "../shared";
import { CurrentOperator, tags } from "../../me/schema";

export function registerGetCurrentOperator(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(deps, "support", {
      method: "get",
      path: "/v1/me",
      operationId: "getCurrentOperator",
      tags,
      summary: "Who is calling",
      description: "The credential of this request, its role and the operator account behind it.",
      responses: { 200: { description: "The caller.", content: json(envelope(CurrentOperator)) }, ...errorResponses("admin", [401]) },
    }),
    async (c) => {
      const actor = c.get("operator");
      const operator = actor.operatorId ? await getOperator(deps.db, actor.operatorId) : null;
      const data = {
        actor: actor.type,
        role: actor.role,
        operator_id: operator?.id ?? null,
        email: operator?.email ?? null,
        token_id: actor.tokenId,
        session_id: actor.sessionId,
      };
      return c.json({ data, request_id: c.get("requestId") }, 200);
    },
  );
}
