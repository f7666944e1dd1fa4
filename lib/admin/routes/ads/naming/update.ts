import { adminRoute } from "../../../access";
import type { AdsDeps } from "../../../../ads";
import { AdsNaming, setNaming } from "../../../../ads";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { requireCustomer } from "../../../customers";
import { CustomerIdParam } from "../../../customers/schema";
import type { AdminRouter } from "../../shared";
import { UpdateAdsNaming } from "../../../ads/naming/schema";

export function registerUpdateCustomerAdNaming(router: AdminRouter, deps: AdsDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "admin",
      {
        method: "patch",
        path: "/v1/customers/{id}/ads/naming",
        operationId: "updateCustomerAdNaming",
        tags: ["Ads naming"],
        summary: "Change the naming convention",
        description:
          "Tokens: `{target}` (target key), `{date}` (UTC day of creation, YYYYMMDD), `{seq}` (required; at least three digits, counted per distinct rest of the name, never reused), and for ads `{adset}` (the ad set's name). null restores the default. Existing names do not change.",
        request: { params: CustomerIdParam, body: { required: true, content: json(UpdateAdsNaming) } },
        responses: { 200: { description: "The naming convention.", content: json(envelope(AdsNaming)) }, ...errorResponses("admin", [400, 401, 404, 422]) },
      },
      { target: ["customer"] },
    ),
    async (c) => {
      const { id } = c.req.valid("param");
      await requireCustomer(deps.db, id);
      return c.json({ data: await setNaming(deps.db, id, c.req.valid("json"), deps.clock.now()), request_id: c.get("requestId") }, 200);
    },
  );
}
