import { adminRoute } from "../../../access";
import { z } from "@hono/zod-openapi";
import type { AdsDeps } from "../../../../ads";
import { listAdTemplates } from "../../../../ads";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import type { AdminRouter } from "../../shared";
import { AdminAdTemplate } from "../../../../ads";
import { tags } from "../../../ads/templates/schema";

export function registerListLibraryAdTemplates(router: AdminRouter, deps: AdsDeps): void {
  router.openapi(
    adminRoute(deps, "support", {
      method: "get",
      path: "/v1/ads/templates",
      operationId: "listLibraryAdTemplates",
      tags,
      summary: "List ad templates",
      description: "All templates, active and inactive, by name.",
      responses: { 200: { description: "The templates.", content: json(envelope(z.array(AdminAdTemplate))) }, ...errorResponses("admin", [401]) },
    }),
    async (c) => c.json({ data: await listAdTemplates(deps.db), request_id: c.get("requestId") }, 200),
  );
}
