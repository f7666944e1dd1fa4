import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import { getAsset } from "../../assets/service";
import type { AssetRouteDeps } from "./deps";
import { Asset, AssetIdParam } from "../../assets/schema";
import { json } from "../../../core/json";

export function registerGetAsset(router: OpenAPIHono<AppEnv>, deps: AssetRouteDeps): void {
  const route = serviceRoute(deps, "read", {
    method: "get",
    path: "/v1/assets/{id}",
    operationId: "getAsset",
    tags: ["Assets"],
    summary: "Get one asset",
    description:
      "The asset in any status: `pending` (announced, maybe uploaded, not completed), `ready` (with `url`, `width`, `height`, `bytes`) or `failed` (the file was rejected at `complete`). An asset still `pending` 24 hours after its announcement is deleted and answers 404, as does another customer's asset.",
    request: { params: AssetIdParam },
    responses: {
      200: { description: "The asset.", content: json(envelope(Asset)) },
      ...errorResponses("mail", [401, 404, 422, 429, 500]),
    },
  });
  router.openapi(route, async (c) => {
    const asset = await getAsset(deps.db, c.get("principal").customerId, c.req.valid("param").id);
    return c.json({ data: asset, request_id: c.get("requestId") }, 200);
  });
}
