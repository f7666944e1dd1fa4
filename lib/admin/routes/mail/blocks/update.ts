import { adminRoute } from "../../../access";
import type { CoreDeps } from "../../../../core/context";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { updateBlock } from "../../../../mail";
import type { AdminRouter } from "../../shared";
import { BlockIdParam, MailBlock, UpdateMailBlock, toMailBlockView, tags } from "../../../mail/blocks/schema";

export function registerUpdateMailBlock(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "admin",
      {
        method: "patch",
        path: "/v1/mail/blocks/{id}",
        operationId: "updateMailBlock",
        tags,
        summary: "Change a block",
        description:
          "Partial update of any field; `params` and `tags` are replaced as a whole. Every change bumps `version`, which refreshes tiles and compiled templates. `active: false` deactivates the block for every customer (stacks that reference it then answer 403 on preview and send), `active: true` reactivates it; enablements are kept either way. Validation as on create.",
        request: { params: BlockIdParam, body: { required: true, content: json(UpdateMailBlock) } },
        responses: { 200: { description: "The changed block.", content: json(envelope(MailBlock)) }, ...errorResponses("admin", [400, 401, 404, 422]) },
      },
      { target: ["block"] },
    ),
    async (c) => {
      const row = await updateBlock(deps.db, c.req.valid("param").id, c.req.valid("json"), deps.clock.now());
      return c.json({ data: toMailBlockView(row), request_id: c.get("requestId") }, 200);
    },
  );
}
