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
      tags: ["Ads targets"],
      summary: "Create a target",
      description:
        "A target is a platform campaign the operator maintains, known to the customer by `key`, with the configuration that fills the locked ad set fields. The campaign id is not checked here: a wrong one surfaces as the platform's error on the first ad set. A key already taken → 409.",
      security,
      request: { params: CustomerIdParam, body: { required: true, content: json(CreateAdminTarget) } },
      responses: { 201: { description: "The target.", content: json(envelope(AdminTarget)) }, ...errorResponses("admin", [400, 401, 404, 409, 422]) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      await requireCustomer(deps, id);
      return c.json({ data: await createTarget(deps.db, id, c.req.valid("json")), request_id: c.get("requestId") }, 201);
    },
  );

  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/customers/{id}/ads/targets",
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
      tags: ["Ads targets"],
      summary: "Change a target",
      description:
        "Partial update: campaign, status and configuration fields (null clears an optional one). Pausing a target makes customers' creates and changes under it answer 409; it does not change the campaign on the platform, which the operator maintains. Configuration changes apply to ad sets created afterwards.",
      security,
      request: { params: TargetKeyParams, body: { required: true, content: json(UpdateAdminTarget) } },
      responses: { 200: { description: "The target.", content: json(envelope(AdminTarget)) }, ...errorResponses("admin", [400, 401, 404, 422]) },
    }),
    async (c) => {
      const { id, key } = c.req.valid("param");
      return c.json({ data: await updateTarget(deps.db, id, key, c.req.valid("json"), deps.clock.now()), request_id: c.get("requestId") }, 200);
    },
  );
}
