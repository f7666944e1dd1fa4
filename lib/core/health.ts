import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv, CoreDeps } from "./context";
import type { ServiceName } from "./errors";
import { envelope, errorResponses } from "./openapi";
import { serviceRoute } from "./route";
import { json } from "./json";

const Health = z
  .object({
    status: z.string().openapi({ description: "`ok` when the service and its database answer.", example: "ok" }),
    api_version: z.string().openapi({ description: "Version of this API.", example: "v1" }),
  })
  .openapi("Health");

const healthOperationIds: Record<ServiceName, string> = { mail: "getMailHealth", ads: "getAdsHealth", admin: "getAdminHealth" };

export function registerGetHealth(router: OpenAPIHono<AppEnv>, deps: CoreDeps, service: ServiceName): void {
  const route = serviceRoute(deps, "account", {
    method: "get",
    path: "/v1/health",
    operationId: healthOperationIds[service],
    tags: ["System"],
    summary: "Health check",
    description: "Answers `ok` when the service can reach its database. Needs any valid key (scope `reporting` suffices).",
    responses: {
      200: { description: "The service is up.", content: json(envelope(Health)) },
      ...errorResponses(service, [401, 429, 500]),
    },
  });
  router.openapi(route, async (c) => {
    return c.json({ data: { status: "ok", api_version: "v1" }, request_id: c.get("requestId") }, 200);
  });
}
