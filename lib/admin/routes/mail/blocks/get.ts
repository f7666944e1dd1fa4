import { adminRoute } from "../../../access";
import type { CoreDeps } from "../../../../core/context";
import { NotFoundError } from "../../../../core/errors";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { getBlock } from "../../../../mail";
import type { AdminRouter } from "../../shared";
import { BlockIdParam, MailBlock, toMailBlockView, tags } from "../../../mail/blocks/schema";

export function registerGetMailBlock(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "get",
        path: "/v1/mail/blocks/{id}",
        operationId: "getMailBlock",
        tags,
        summary: "Get a block",
        description: "One block with its MJML, active or not.",
        request: { params: BlockIdParam },
        responses: { 200: { description: "The block.", content: json(envelope(MailBlock)) }, ...errorResponses("admin", [401, 404, 422]) },
      },
      { target: ["block"] },
    ),
    async (c) => {
      const row = await getBlock(deps.db, c.req.valid("param").id);
      if (!row) throw new NotFoundError("Block");
      return c.json({ data: toMailBlockView(row), request_id: c.get("requestId") }, 200);
    },
  );
}
