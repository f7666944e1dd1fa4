import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AdsDeps } from "../../ads/deps";
import { createTarget, findTargetByKey, listTargets, toTargetView, updateTarget } from "../../ads/targets/service";
import type { AppEnv } from "../../core/context";
import { NotFoundError } from "../../core/errors";
import { envelope, errorResponses } from "../../core/openapi";
import { requireCustomer } from "./ads-account";
import { AdminTarget, CreateAdminTarget, TargetKeyParams, UpdateAdminTarget } from "./ads-schema";
import { CustomerIdParam } from "./schema";

const security = [{ adminToken: [] }];
const json = <T extends z.ZodType>(schema: T) => ({ "application/json": { schema } });

export function registerAdsTargetRoutes(router: OpenAPIHono<AppEnv>, deps: AdsDeps): void {
  router.openapi(
    createRoute({
      method: "post",
      path: "/v1/customers/{id}/ads/targets",
      operationId: "createCustomerAdTarget",
      tags: ["Ads targets"],
      summary: "Create a target",
      description:
        "A target is a platform campaign the operator maintains, known to the customer by `key`, with the configuration that fills the locked ad set fields. The campaign is read from the platform with the customer's token before anything is stored (so the ad account onboarding — token, app secret, ad account — comes first, else 422 `details.missing`): an unknown id, one out of the token's reach, a campaign of another ad account, an archived or deleted one, or one holding a campaign budget (customers give each ad set its own budget) answers 422 on `platform_campaign_id`; a token the platform refuses answers 422 `details.missing: [\"access_token\"]`. The target's status is mirrored to the campaign: when the campaign's configured status differs, it is set to the target's (ACTIVE or PAUSED) on the platform. A key already taken → 409.",
      security,
      request: { params: CustomerIdParam, body: { required: true, content: json(CreateAdminTarget) } },
      responses: { 201: { description: "The target.", content: json(envelope(AdminTarget)) }, ...errorResponses("admin", [400, 401, 404, 409, 422, 429, 500]) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      await requireCustomer(deps, id);
      return c.json({ data: await createTarget(deps, id, c.req.valid("json")), request_id: c.get("requestId") }, 201);
    },
  );

  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/customers/{id}/ads/targets",
      operationId: "listCustomerAdTargets",
      tags: ["Ads targets"],
      summary: "List a customer's targets",
      description: "All targets, ordered by key.",
      security,
      request: { params: CustomerIdParam },
      responses: { 200: { description: "The targets.", content: json(envelope(z.array(AdminTarget))) }, ...errorResponses("admin", [401, 404, 422]) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      await requireCustomer(deps, id);
      return c.json({ data: await listTargets(deps.db, id), request_id: c.get("requestId") }, 200);
    },
  );

  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/customers/{id}/ads/targets/{key}",
      operationId: "getCustomerAdTarget",
      tags: ["Ads targets"],
      summary: "Get a target",
      security,
      request: { params: TargetKeyParams },
      responses: { 200: { description: "The target.", content: json(envelope(AdminTarget)) }, ...errorResponses("admin", [401, 404, 422]) },
    }),
    async (c) => {
      const { id, key } = c.req.valid("param");
      const target = await findTargetByKey(deps.db, id, key);
      if (!target) throw new NotFoundError("Target");
      return c.json({ data: toTargetView(target), request_id: c.get("requestId") }, 200);
    },
  );

  router.openapi(
    createRoute({
      method: "patch",
      path: "/v1/customers/{id}/ads/targets/{key}",
      operationId: "updateCustomerAdTarget",
      tags: ["Ads targets"],
      summary: "Change a target",
      description:
        "Partial update: campaign, status and configuration fields (null clears an optional one). Status is mirrored to the campaign on the platform: PAUSED pauses the campaign (nothing under it delivers; its ad sets and ads read `CAMPAIGN_PAUSED`) and makes customers' creates and changes under the target answer 409; ACTIVE resumes it. Whenever `platform_campaign_id` or `status` is sent, the (new) campaign is verified as on create — 422 on `platform_campaign_id` and nothing stored when it cannot back the target — and set to the target's status if it differs, which also re-aligns a campaign changed on the platform directly. Moving a target to another campaign leaves the old campaign and the ad sets already in it as they are. Configuration changes apply to ad sets created afterwards and need no platform call.",
      security,
      request: { params: TargetKeyParams, body: { required: true, content: json(UpdateAdminTarget) } },
      responses: { 200: { description: "The target.", content: json(envelope(AdminTarget)) }, ...errorResponses("admin", [400, 401, 404, 422, 429, 500]) },
    }),
    async (c) => {
      const { id, key } = c.req.valid("param");
      return c.json({ data: await updateTarget(deps, id, key, c.req.valid("json")), request_id: c.get("requestId") }, 200);
    },
  );
}
