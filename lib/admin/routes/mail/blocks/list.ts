import { adminRoute } from "../../../access";
import { z } from "@hono/zod-openapi";
import type { CoreDeps } from "../../../../core/context";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { listAllBlocks } from "../../../../mail";
import type { AdminRouter } from "../../shared";
import { MailBlock, toMailBlockView, tags } from "../../../mail/blocks/schema";

export function registerListMailBlocks(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(deps, "support", {
      method: "get",
      path: "/v1/mail/blocks",
      operationId: "listMailBlocks",
      tags,
      summary: "List the block library",
      description: "Every block, active and inactive, oldest first. Not paginated: the library is maintained by hand and stays small.",
      responses: { 200: { description: "The blocks.", content: json(envelope(z.array(MailBlock))) }, ...errorResponses("admin", [401]) },
    }),
    async (c) => {
      const rows = await listAllBlocks(deps.db);
      return c.json({ data: rows.map(toMailBlockView), request_id: c.get("requestId") }, 200);
    },
  );
}
