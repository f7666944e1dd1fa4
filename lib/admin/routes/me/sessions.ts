import { z } from "@hono/zod-openapi";
import { adminRoute } from "../../access";
import type { CoreDeps } from "../../../core/context";
import { NotFoundError } from "../../../core/errors";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { listOperatorSessions, revokeOperatorSession } from "../../operators/sessions";
import type { AdminRouter } from "../shared";
import { OperatorSession, ownOperatorId, SessionIdParam, tags } from "../../me/schema";

export function registerListMySessions(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(deps, "support", {
      method: "get",
      path: "/v1/me/sessions",
      operationId: "listMySessions",
      tags,
      summary: "List my console sessions",
      description: "The caller's open console sessions, newest first. A credential without an operator account answers 409 `no_operator_account`.",
      responses: { 200: { description: "The sessions.", content: json(envelope(z.array(OperatorSession))) }, ...errorResponses("admin", [401, 409]) },
    }),
    async (c) => {
      const sessions = await listOperatorSessions(deps.db, deps.clock, ownOperatorId(c), c.get("operator").sessionId);
      return c.json({ data: sessions, request_id: c.get("requestId") }, 200);
    },
  );
}

export function registerRevokeMySession(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "delete",
        path: "/v1/me/sessions/{session_id}",
        operationId: "revokeMySession",
        tags,
        summary: "End one of my console sessions",
        description: "Signs that browser out at once (its next request answers 401). Open to every role: it changes only the caller's own sessions.",
        request: { params: SessionIdParam },
        responses: { 204: { description: "Ended." }, ...errorResponses("admin", [401, 404, 409, 422]) },
      },
      { target: ["session"], supportMayWrite: true },
    ),
    async (c) => {
      if (!(await revokeOperatorSession(deps.db, ownOperatorId(c), c.req.valid("param").session_id))) throw new NotFoundError("Session");
      return c.body(null, 204);
    },
  );
}
