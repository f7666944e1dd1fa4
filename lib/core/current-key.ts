import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv, CoreDeps } from "./context";
import type { ServiceName } from "./errors";
import { json } from "./json";
import { envelope, errorResponses } from "./openapi";
import { serviceRoute } from "./route";

const CurrentKey = z
  .object({
    id: z
      .string()
      .openapi({ description: "The key's id (as listed in the admin API; never the key itself).", example: "2f1c0a9e-5b7d-4c1e-9a37-0f6b8d2e4c11" }),
    service: z.enum(["mail", "ads"]).openapi({ description: "The service the key belongs to.", example: "mail" }),
    scope: z.enum(["full", "reporting"]).openapi({
      description: "`full` reads, writes and sends; `reporting` only reads. Operations declare the scope they need in their `security`.",
      example: "full",
    }),
    customer_id: z.string().openapi({ description: "The customer the key is bound to.", example: "7d3f6c2a-1e4b-4a8f-9c5d-2b6e8f0a1c3d" }),
    customer_name: z.string().openapi({ description: "The customer's name.", example: "Demo" }),
  })
  .openapi("CurrentKey");

const operationIds: Record<Exclude<ServiceName, "admin">, string> = { mail: "getCurrentMailKey", ads: "getCurrentAdsKey" };

/**
 * `GET /v1/key`: what the calling key may do. A tool built on the API (the MCP server, a portal's settings
 * page) reads it once to offer only the operations the key's scope allows, instead of learning it from a 403.
 */
export function registerGetCurrentKey(router: OpenAPIHono<AppEnv>, deps: CoreDeps, service: Exclude<ServiceName, "admin">): void {
  const route = serviceRoute(deps, "account", {
    method: "get",
    path: "/v1/key",
    operationId: operationIds[service],
    tags: ["System"],
    summary: "The calling key",
    description:
      "The service, scope and customer of the key that makes this request. Any valid key may call it (scope `reporting` suffices); a blocked or deactivated account still reads its own key.",
    responses: {
      200: { description: "The key.", content: json(envelope(CurrentKey)) },
      ...errorResponses(service, [401, 429, 500]),
    },
  });
  router.openapi(route, async (c) => {
    const principal = c.get("principal");
    const data = {
      id: principal.keyId,
      service: principal.service,
      scope: principal.scope,
      customer_id: principal.customerId,
      customer_name: principal.customerName,
    };
    return c.json({ data, request_id: c.get("requestId") }, 200);
  });
}
