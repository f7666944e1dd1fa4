import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import type { MailDeps } from "../../deps";
import { renderForCustomer } from "../../render/customer";
import { Preview, PreviewRequest } from "../../preview/schema";

export function registerCreatePreview(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  router.openapi(
    serviceRoute(deps, "write", {
      method: "post",
      path: "/v1/render/preview",
      operationId: "renderPreview",
      tags: ["Rendering"],
      summary: "Preview a stack",
      description:
        "Stateless: renders a builder stack as a newsletter with this account's design rules, brand values and newsletter footer, exactly as a template with this stack is rendered when sent (the same pipeline; placeholders that recipient data would fill render empty, conditional sections without a value are left out). Sends and bills nothing. 403 when a block is not enabled or not active (one `details` entry `{ path: blocks.<i>.block_id, message }` per such entry); 422 for content that cannot become a mail (e.g. a `javascript:` URL, a missing required block parameter).",
      request: { body: { required: true, content: json(PreviewRequest) } },
      responses: {
        200: { description: "MJML, compiled HTML and MJML findings.", content: json(envelope(Preview)) },
        ...errorResponses("mail", [400, 401, 403, 422, 429, 500]),
      },
    }),
    async (c) => {
      const principal = c.get("principal");
      const body = c.req.valid("json");
      const result = await renderForCustomer(
        deps.db,
        { id: principal.customerId, name: principal.customerName },
        {
          kind: "newsletter",
          stack: body.blocks,
          values: body.values,
        },
      );
      return c.json({ data: { mjml: result.mjml, html: result.html, errors: result.errors, stub: false }, request_id: c.get("requestId") }, 200);
    },
  );
}
