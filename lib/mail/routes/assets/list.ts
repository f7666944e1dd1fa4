import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import { errorResponses, pagedEnvelope } from "../../../core/openapi";
import { cursorQuery, decodeCursor, limitQuery } from "../../../core/pagination";
import { serviceRoute } from "../../../core/route";
import { listAssets } from "../../assets/service";
import type { AssetRouteDeps } from "./deps";
import { Asset } from "../../assets/schema";
import { json } from "../../../core/json";

export function registerListAssets(router: OpenAPIHono<AppEnv>, deps: AssetRouteDeps): void {
  const route = serviceRoute(deps, "read", {
    method: "get",
    path: "/v1/assets",
    operationId: "listAssets",
    tags: ["Assets"],
    summary: "List the customer's images",
    description:
      "Finished images only (`status` `ready`), newest first, with a cursor: pass `paging.after` as `after` for the next page. Pending and failed uploads are not listed; read them with GET /v1/assets/{id}.",
    request: { query: z.object({ limit: limitQuery(100, 50), ...cursorQuery }) },
    responses: {
      200: { description: "A page of images.", content: json(pagedEnvelope(Asset)) },
      ...errorResponses("mail", [400, 401, 422, 429, 500]),
    },
  });
  router.openapi(route, async (c) => {
    const query = c.req.valid("query");
    const page = await listAssets(deps.db, c.get("principal").customerId, { limit: query.limit, after: decodeCursor(query.after) });
    return c.json({ data: page.items, paging: page.paging, request_id: c.get("requestId") }, 200);
  });
}
