import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import { deleteAsset } from "../../assets/service";
import type { AssetRouteDeps } from "./deps";
import { AssetIdParam, DeletedAsset } from "../../assets/schema";
import { json } from "../../../core/json";

export function registerDeleteAsset(router: OpenAPIHono<AppEnv>, deps: AssetRouteDeps): void {
  const route = serviceRoute(deps, "write", {
    method: "delete",
    path: "/v1/assets/{id}",
    operationId: "deleteAsset",
    tags: ["Assets"],
    summary: "Delete an image",
    description: `Deletes the asset and, unless another asset has the very same image (identical images share one content-addressed file, also across customers), its published file: the URL then answers 404.

**Consequences.** E-mails already sent keep pointing at the URL and lose the image in every inbox that loads it later. So do sends that pass the URL as a parameter value. To protect what is still being sent, the delete is refused with 409 (\`details\`: \`reason\` \`asset_in_use\`, then \`template_ids.N\` naming each template) while one of your templates (any status, not deleted) names the image in its stored values; change those templates first. Deleting a pending asset also discards an upload that was not completed. A second delete answers 404.`,
    request: { params: AssetIdParam },
    responses: {
      200: { description: "The asset is deleted.", content: json(envelope(DeletedAsset)) },
      ...errorResponses("mail", [401, 403, 404, 409, 422, 429, 500]),
    },
  });
  router.openapi(route, async (c) => {
    const deleted = await deleteAsset(deps, c.get("principal").customerId, c.req.valid("param").id);
    return c.json({ data: deleted, request_id: c.get("requestId") }, 200);
  });
}
