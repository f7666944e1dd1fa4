import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { issueApiKey, listApiKeys, revokeApiKey } from "../../core/api-keys";
import type { AppEnv, CoreDeps } from "../../core/context";
import { NotFoundError } from "../../core/errors";
import { envelope, errorResponses } from "../../core/openapi";
import { getCustomer } from "../customers";
import { ApiKey, CreateApiKey, CustomerIdParam, IssuedApiKey } from "./schema";

const security = [{ adminToken: [] }];
const json = <T extends z.ZodType>(schema: T) => ({ "application/json": { schema } });

export function registerKeyRoutes(router: OpenAPIHono<AppEnv>, deps: CoreDeps): void {
  router.openapi(
    createRoute({
      method: "post",
      path: "/v1/customers/{id}/keys",
      operationId: "issueApiKey",
      tags: ["API keys"],
      summary: "Issue an API key",
      description: "Returns the key once; only its SHA-256 hash is stored. Mail keys start with `mk_live_`, ads keys with `ak_live_`.",
      security,
      request: { params: CustomerIdParam, body: { required: true, content: json(CreateApiKey) } },
      responses: { 201: { description: "The new key, shown once.", content: json(envelope(IssuedApiKey)) }, ...errorResponses("admin", [400, 401, 404, 422]) },
    }),
    async (c) => {
      const customerId = c.req.valid("param").id;
      if (!(await getCustomer(deps.db, customerId))) throw new NotFoundError("Customer");
      const issued = await issueApiKey(deps.db, { customerId, ...c.req.valid("json") });
      return c.json({ data: issued, request_id: c.get("requestId") }, 201);
    },
  );

  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/customers/{id}/keys",
      operationId: "listApiKeys",
      tags: ["API keys"],
      summary: "List a customer's API keys",
      description: "Without secrets; revoked keys included with `revoked_at`.",
      security,
      request: { params: CustomerIdParam },
      responses: { 200: { description: "The keys.", content: json(envelope(z.array(ApiKey))) }, ...errorResponses("admin", [401, 404, 422]) },
    }),
    async (c) => {
      const customerId = c.req.valid("param").id;
      if (!(await getCustomer(deps.db, customerId))) throw new NotFoundError("Customer");
      return c.json({ data: await listApiKeys(deps.db, customerId), request_id: c.get("requestId") }, 200);
    },
  );

  router.openapi(
    createRoute({
      method: "delete",
      path: "/v1/keys/{id}",
      operationId: "revokeApiKey",
      tags: ["API keys"],
      summary: "Revoke an API key",
      description: "The key answers 401 from the next request on. Revoking twice is harmless.",
      security,
      request: { params: z.object({ id: z.uuid().openapi({ param: { name: "id", in: "path" }, description: "Key id.", example: "6a2f41a3-c54c-4c4a-8e8d-3f1b0c7d9e21" }) }) },
      responses: { 200: { description: "The revoked key.", content: json(envelope(ApiKey)) }, ...errorResponses("admin", [401, 404, 422]) },
    }),
    async (c) => {
      const revoked = await revokeApiKey(deps.db, c.req.valid("param").id, deps.clock.now());
      if (!revoked) throw new NotFoundError("API key");
      deps.principals.invalidateCustomer(revoked.customer_id);
      return c.json({ data: revoked, request_id: c.get("requestId") }, 200);
    },
  );
}
