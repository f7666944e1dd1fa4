import { adminRoute } from "../../access";
import { revokeApiKey } from "../../../core/api-keys";
import type { CoreDeps } from "../../../core/context";
import { NotFoundError } from "../../../core/errors";
import { json } from "../../../core/json";
import { envelope, errorResponses, idPathParam } from "../../../core/openapi";
import type { AdminRouter } from "../shared";
import { ApiKey } from "../../keys/schema";

export function registerRevokeApiKey(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "admin",
      {
        method: "delete",
        path: "/v1/keys/{id}",
        operationId: "revokeApiKey",
        tags: ["API keys"],
        summary: "Revoke an API key",
        description: "The key answers 401 from the next request on. Revoking twice is harmless.",
        request: {
          params: idPathParam("Key id.", "6a2f41a3-c54c-4c4a-8e8d-3f1b0c7d9e21"),
        },
        responses: { 200: { description: "The revoked key.", content: json(envelope(ApiKey)) }, ...errorResponses("admin", [401, 404, 422]) },
      },
      { target: ["key"] },
    ),
    async (c) => {
      const revoked = await revokeApiKey(deps.db, c.req.valid("param").id, deps.clock.now());
      if (!revoked) throw new NotFoundError("API key");
      deps.principals.invalidateCustomer(revoked.customer_id);
      return c.json({ data: revoked, request_id: c.get("requestId") }, 200);
    },
  );
}
