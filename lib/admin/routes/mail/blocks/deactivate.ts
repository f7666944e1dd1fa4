import { adminRoute } from "../../../access";
import type { CoreDeps } from "../../../../core/context";
import { NotFoundError } from "../../../../core/errors";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { deactivateBlock } from "../../../../mail";
import type { AdminRouter } from "../../shared";
import { BlockIdParam, MailBlock, toMailBlockView, tags } from "../../../mail/blocks/schema";

export function registerDeactivateMailBlock(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "admin",
      {
        method: "delete",
        path: "/v1/mail/blocks/{id}",
        operationId: "deactivateMailBlock",
        tags,
        summary: "Deactivate a block",
        description:
          "Deactivates rather than deletes: saved stacks reference blocks by id, so the row (and every enablement) stays and `PATCH` with `active: true` brings it back. Deactivating bumps `version`; deactivating an inactive block changes nothing and answers the block as it is.",
        request: { params: BlockIdParam },
        responses: { 200: { description: "The block, now inactive.", content: json(envelope(MailBlock)) }, ...errorResponses("admin", [401, 404, 422]) },
      },
      { target: ["block"] },
    ),
    async (c) => {
      const row = await deactivateBlock(deps.db, c.req.valid("param").id, deps.clock.now());
      if (!row) throw new NotFoundError("Block");
      return c.json({ data: toMailBlockView(row), request_id: c.get("requestId") }, 200);
    },
  );
}
