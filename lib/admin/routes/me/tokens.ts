import { z } from "@hono/zod-openapi";
import { adminRoute } from "../../access";
import type { CoreDeps } from "../../../core/context";
import { NotFoundError } from "../../../core/errors";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { issueOperatorToken, listOperatorTokens, revokeOperatorToken } from "../../operators/tokens";
import { CreateOperatorToken, IssuedOperatorToken, OperatorToken } from "../../operators/schema";
import type { AdminRouter } from "../shared";
import { ownOperatorId, tags, TokenIdParam } from "../../me/schema";

const own = "Open to every role: it changes only the caller's own credentials. A credential without an operator account answers 409 `no_operator_account`.";

export function registerListMyTokens(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(deps, "support", {
      method: "get",
      path: "/v1/me/tokens",
      operationId: "listMyTokens",
      tags,
      summary: "List my API tokens",
      description: `Newest first, revoked ones included; never the tokens themselves. ${own}`,
      responses: { 200: { description: "The tokens.", content: json(envelope(z.array(OperatorToken))) }, ...errorResponses("admin", [401, 409]) },
    }),
    async (c) => c.json({ data: await listOperatorTokens(deps.db, ownOperatorId(c)), request_id: c.get("requestId") }, 200),
  );
}

export function registerIssueMyToken(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "post",
        path: "/v1/me/tokens",
        operationId: "issueMyToken",
        tags,
        summary: "Make an API token for myself",
        description: `Returns the token once (\`op_live_…\`); it acts as the caller with their current role. ${own}`,
        request: { body: { required: true, content: json(CreateOperatorToken) } },
        responses: {
          201: { description: "The token, shown once.", content: json(envelope(IssuedOperatorToken)) },
          ...errorResponses("admin", [400, 401, 409, 422]),
        },
      },
      { target: [], creates: "token", supportMayWrite: true },
    ),
    async (c) => c.json({ data: await issueOperatorToken(deps.db, ownOperatorId(c), c.req.valid("json").label), request_id: c.get("requestId") }, 201),
  );
}

export function registerRevokeMyToken(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "delete",
        path: "/v1/me/tokens/{token_id}",
        operationId: "revokeMyToken",
        tags,
        summary: "Revoke one of my API tokens",
        description: `The token answers 401 from the next request on; revoking twice is harmless. ${own}`,
        request: { params: TokenIdParam },
        responses: { 200: { description: "The revoked token.", content: json(envelope(OperatorToken)) }, ...errorResponses("admin", [401, 404, 409, 422]) },
      },
      { target: ["token"], supportMayWrite: true },
    ),
    async (c) => {
      const revoked = await revokeOperatorToken(deps.db, deps.clock, ownOperatorId(c), c.req.valid("param").token_id);
      if (!revoked) throw new NotFoundError("Operator token");
      return c.json({ data: revoked, request_id: c.get("requestId") }, 200);
    },
  );
}
