import { adminRoute } from "../../../access";
import type { CoreDeps } from "../../../../core/context";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { createBlock } from "../../../../mail";
import type { AdminRouter } from "../../shared";
import { CreateMailBlock, MailBlock, toMailBlockView, tags } from "../../../mail/blocks/schema";

export function registerCreateMailBlock(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "admin",
      {
        method: "post",
        path: "/v1/mail/blocks",
        operationId: "createMailBlock",
        tags,
        summary: "Create a block",
        description:
          "Adds an MJML fragment to the global library (version 1, active). It is usable by no customer until enabled for it (`PUT /v1/customers/{id}/mail/blocks/{blockId}`). 422 names the field: a slug outside the pattern, empty MJML, unbalanced `{{#x}}…{{/x}}` sections, duplicate parameter names or tag slugs, a `javascript:` example of a `url` parameter, or a built-in tag (`header`, `footer`) with another label. Slugs need not be unique: stacks reference blocks by id.",
        request: { body: { required: true, content: json(CreateMailBlock) } },
        responses: { 201: { description: "The new block.", content: json(envelope(MailBlock)) }, ...errorResponses("admin", [400, 401, 422]) },
      },
      { target: [], creates: "block" },
    ),
    async (c) => {
      const row = await createBlock(deps.db, c.req.valid("json"));
      return c.json({ data: toMailBlockView(row), request_id: c.get("requestId") }, 201);
    },
  );
}
