import { adminRoute } from "../../../access";
import type { AdsDeps } from "../../../../ads";
import { updateTarget } from "../../../../ads";
import { AdminTarget, UpdateAdminTarget } from "../../../../ads";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import type { AdminRouter } from "../../shared";
import { TargetKeyParams } from "../../../ads/targets/schema";

export function registerUpdateCustomerAdTarget(router: AdminRouter, deps: AdsDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "admin",
      {
        method: "patch",
        path: "/v1/customers/{id}/ads/targets/{key}",
        operationId: "updateCustomerAdTarget",
        tags: ["Ads targets"],
        summary: "Change a target",
        description:
          "Partial update: campaign, status and configuration fields (null clears an optional one). Status is mirrored to the campaign on the platform: PAUSED pauses the campaign (nothing under it delivers; its ad sets and ads read `CAMPAIGN_PAUSED`) and makes customers' creates and changes under the target answer 409; ACTIVE resumes it. Whenever `platform_campaign_id` or `status` is sent, the (new) campaign is verified as on create — 422 on `platform_campaign_id` and nothing stored when it cannot back the target — and set to the target's status if it differs, which also re-aligns a campaign changed on the platform directly. Moving a target to another campaign leaves the old campaign and the ad sets already in it as they are. Configuration changes apply to ad sets created afterwards and need no platform call.",
        request: { params: TargetKeyParams, body: { required: true, content: json(UpdateAdminTarget) } },
        responses: { 200: { description: "The target.", content: json(envelope(AdminTarget)) }, ...errorResponses("admin", [400, 401, 404, 422, 429, 500]) },
      },
      { target: ["customer", "target"] },
    ),
    async (c) => {
      const { id, key } = c.req.valid("param");
      return c.json({ data: await updateTarget(deps, id, key, c.req.valid("json")), request_id: c.get("requestId") }, 200);
    },
  );
}
