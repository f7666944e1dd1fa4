import { adminRoute } from "../../access";
import { issueApiKey } from "../../../core/api-keys";
import type { CoreDeps } from "../../../core/context";
import { NotFoundError } from "../../../core/errors";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { getCustomer } from "../../customers";
import { CustomerIdParam } from "../../customers/schema";
import type { AdminRouter } from "../shared";
import { CreateApiKey, IssuedApiKey } from "../../keys/schema";

export function registerIssueApiKey(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "admin",
      {
        method: "post",
        path: "/v1/customers/{id}/keys",
        operationId: "issueApiKey",
        tags: ["API keys"],
        summary: "Issue an API key",
        description: "Returns the key once; only its SHA-256 hash is stored. Mail keys start with `mk_live_`, ads keys with `ak_live_`.",
        request: { params: CustomerIdParam, body: { required: true, content: json(CreateApiKey) } },
        responses: {
          201: { description: "The new key, shown once.", content: json(envelope(IssuedApiKey)) },
          ...errorResponses("admin", [400, 401, 404, 422]),
        },
      },
      { target: ["customer"], creates: "key" },
    ),
    async (c) => {
      const customerId = c.req.valid("param").id;
      if (!(await getCustomer(deps.db, customerId, deps.clock.now()))) throw new NotFoundError("Customer");
      const issued = await issueApiKey(deps.db, { customerId, ...c.req.valid("json") });
      return c.json({ data: issued, request_id: c.get("requestId") }, 201);
    },
  );
}
