import { adminRoute } from "../../../access";
import type { AdsDeps } from "../../../../ads";
import { getOnboarding } from "../../../../ads";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { requireCustomer } from "../../../customers";
import { CustomerIdParam } from "../../../customers/schema";
import type { AdminRouter } from "../../shared";
import { AdsOnboardingStatus, onboardingStatus } from "../../../ads/account/schema";

export function registerGetCustomerAdAccount(router: AdminRouter, deps: AdsDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "get",
        path: "/v1/customers/{id}/ads/account",
        operationId: "getCustomerAdAccount",
        tags: ["Ads onboarding"],
        summary: "Show a customer's ad account onboarding",
        description:
          'Which onboarding items are present and which are missing. Nothing stored is returned: the token and app secret show as `*_set` flags and `*_state` (when each last changed and by whom, from the audit log), to every role, the account identifiers and legal details (sealed at rest like the secrets) only in `present`/`missing`. `token_status` shows whether the platform accepts the stored token: when any platform call is refused with Graph code 190 (expired, revoked), the refusal is recorded here with its time and Graph code/subcode (never the token), `access_token` moves to `missing`, and customers\' calls that need the platform answer 422 `details.missing: ["access_token"]` until a new token is set with PATCH.',
        request: { params: CustomerIdParam },
        responses: { 200: { description: "The onboarding.", content: json(envelope(AdsOnboardingStatus)) }, ...errorResponses("admin", [401, 404, 422]) },
      },
      { target: ["customer"] },
    ),
    async (c) => {
      const { id } = c.req.valid("param");
      await requireCustomer(deps.db, id);
      return c.json({ data: await onboardingStatus(deps.db, id, await getOnboarding(deps.db, id)), request_id: c.get("requestId") }, 200);
    },
  );
}
