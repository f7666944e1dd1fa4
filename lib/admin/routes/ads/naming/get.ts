import { adminRoute } from "../../../access";
import type { AdsDeps } from "../../../../ads";
import { AdsNaming, getNaming } from "../../../../ads";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { requireCustomer } from "../../../customers";
import { CustomerIdParam } from "../../../customers/schema";
import type { AdminRouter } from "../../shared";

export function registerGetCustomerAdNaming(router: AdminRouter, deps: AdsDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "get",
        path: "/v1/customers/{id}/ads/naming",
        operationId: "getCustomerAdNaming",
        tags: ["Ads naming"],
        summary: "Show the naming convention",
        description:
          "Patterns of ad set and ad names. Defaults: `{target}-{date}-{seq}` (e.g. `demo-20260115-001`) and `{adset}-ad{seq}` (e.g. `demo-20260115-001-ad001`).",
        request: { params: CustomerIdParam },
        responses: { 200: { description: "The naming convention.", content: json(envelope(AdsNaming)) }, ...errorResponses("admin", [401, 404, 422]) },
      },
      { target: ["customer"] },
    ),
    async (c) => {
      const { id } = c.req.valid("param");
      await requireCustomer(deps.db, id);
      return c.json({ data: await getNaming(deps.db, id), request_id: c.get("requestId") }, 200);
    },
  );
}
