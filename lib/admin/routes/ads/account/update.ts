import { adminRoute } from "../../../access";
import type { AdsDeps } from "../../../../ads";
import { updateOnboarding } from "../../../../ads";
import { AdsOnboarding } from "../../../../ads";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { requireCustomer } from "../../../customers";
import { recentAuthSentence, requireRecentAuth } from "../../../reauthentication";
import { CustomerIdParam } from "../../../customers/schema";
import type { AdminRouter } from "../../shared";
import { UpdateAdsOnboarding } from "../../../../ads";

export function registerUpdateCustomerAdAccount(router: AdminRouter, deps: AdsDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "admin",
      {
        method: "patch",
        path: "/v1/customers/{id}/ads/account",
        operationId: "updateCustomerAdAccount",
        tags: ["Ads onboarding"],
        summary: "Set a customer's ad account onboarding",
        description:
          "Partial update; null clears a field. Every field is sealed (AES-256-GCM) before it is stored and never returned; `present` and `missing` show what is set. When the token, the app secret or the ad account changes and both secrets are known, the platform is asked first (`GET /me` with `appsecret_proof`, then the ad account): a refusal answers 422 on `access_token` or `ad_account_id` and stores nothing. A change that the platform accepts clears a recorded token refusal (`token_status` back to `verified`); sending the same token again re-verifies it. Setting `access_token` or `app_secret` is sensitive: " +
          recentAuthSentence(),
        request: { params: CustomerIdParam, body: { required: true, content: json(UpdateAdsOnboarding) } },
        responses: {
          200: { description: "The onboarding.", content: json(envelope(AdsOnboarding)) },
          ...errorResponses("admin", [400, 401, 403, 404, 422, 429, 500]),
        },
      },
      { target: ["customer"] },
    ),
    async (c) => {
      const { id } = c.req.valid("param");
      await requireCustomer(deps.db, id);
      const change = c.req.valid("json");
      if (change.access_token !== undefined || change.app_secret !== undefined)
        requireRecentAuth(deps, c.get("operator"), "Setting the platform token or app secret");
      return c.json({ data: await updateOnboarding(deps, id, change), request_id: c.get("requestId") }, 200);
    },
  );
}
