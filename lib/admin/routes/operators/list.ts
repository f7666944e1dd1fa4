import { z } from "@hono/zod-openapi";
import { adminRoute } from "../../access";
import type { CoreDeps } from "../../../core/context";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { listOperators } from "../../operators/accounts";
import type { AdminRouter } from "../shared";
import { Operator, tags } from "../../operators/schema";

export function registerListOperators(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(deps, "owner", {
      method: "get",
      path: "/v1/operators",
      operationId: "listOperators",
      tags,
      summary: "List operator accounts",
      description: "Every account, enabled and disabled, oldest first (a team's operators: no paging).",
      responses: {
        200: { description: "The operators.", content: json(envelope(z.array(Operator))) },
        ...errorResponses("admin", [401]),
      },
    }),
    async (c) => c.json({ data: await listOperators(deps.db), request_id: c.get("requestId") }, 200),
  );
}
