import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import type { MailDeps } from "../../deps";
import { listUsableBlocks } from "../../setup/blocks";
import { Block, toBlockView } from "../../blocks/schema";

export function registerListBlocks(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  router.openapi(
    serviceRoute(deps, "read", {
      method: "get",
      path: "/v1/blocks",
      operationId: "listBlocks",
      tags: ["Blocks"],
      summary: "List usable blocks",
      description: "The blocks an administrator enabled for this account and that are active, oldest first.",
      responses: { 200: { description: "The blocks.", content: json(envelope(z.array(Block))) }, ...errorResponses("mail", [401, 429, 500]) },
    }),
    async (c) => {
      const rows = await listUsableBlocks(deps.db, c.get("principal").customerId);
      return c.json({ data: rows.map(toBlockView), request_id: c.get("requestId") }, 200);
    },
  );
}
