import { adminRoute } from "../../../access";
import type { AdsDeps } from "../../../../ads";
import { createTarget } from "../../../../ads";
import { AdminTarget, CreateAdminTarget } from "../../../../ads";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { requireCustomer } from "../../../customers";
import { CustomerIdParam } from "../../../customers/schema";
import type { AdminRouter } from "../../shared";

export function registerCreateCustomerAdTarget(router: AdminRouter, deps: AdsDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "admin",
      {
        method: "post",
        path: "/v1/customers/{id}/ads/targets",
        operationId: "createCustomerAdTarget",
        tags: ["Ads targets"],
        summary: "Create a target",
        description:
          "A target is a platform campaign the operator maintains, known to the customer by `key`, with the configuration that fills the locked ad set fields. The campaign is read from the platform with the customer's token before anything is stored (so the ad account onboarding — token, app secret, ad account — comes first, else 422 `details.missing`): an unknown id, one out of the token's reach, a campaign of another ad account, an archived or deleted one, or one holding a campaign budget (customers give each ad set its own budget) answers 422 on `platform_campaign_id`; a token the platform refuses answers 422 `details.missing: [\"access_token\"]`. The target's status is mirrored to the campaign: when the campaign's configured status differs, it is set to the target's (ACTIVE or PAUSED) on the platform. A key already taken → 409.",
        request: { params: CustomerIdParam, body: { required: true, content: json(CreateAdminTarget) } },
        responses: {
          201: { description: "The target.", content: json(envelope(AdminTarget)) },
          ...errorResponses("admin", [400, 401, 404, 409, 422, 429, 500]),
        },
      },
      { target: ["customer"], creates: "target" },
    ),
    async (c) => {
      const { id } = c.req.valid("param");
      await requireCustomer(deps.db, id);
      return c.json({ data: await createTarget(deps, id, c.req.valid("json")), request_id: c.get("requestId") }, 201);
    },
  );
}
