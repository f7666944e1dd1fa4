import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AdsDeps } from "../../ads/deps";
import { getNaming, setNaming } from "../../ads/naming";
import type { AppEnv } from "../../core/context";
import { envelope, errorResponses } from "../../core/openapi";
import { requireCustomer } from "./ads-account";
import { AdsNaming, UpdateAdsNaming } from "./ads-schema";
import { CustomerIdParam } from "./schema";

const security = [{ adminToken: [] }];
const json = <T extends z.ZodType>(schema: T) => ({ "application/json": { schema } });

export function registerAdsNamingRoutes(router: OpenAPIHono<AppEnv>, deps: AdsDeps): void {
  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/customers/{id}/ads/naming",
      operationId: "getCustomerAdNaming",
      tags: ["Ads naming"],
      summary: "Show the naming convention",
      description: "Patterns of ad set and ad names. Defaults: `{target}-{date}-{seq}` (e.g. `demo-20260115-001`) and `{adset}-ad{seq}` (e.g. `demo-20260115-001-ad001`).",
      security,
      request: { params: CustomerIdParam },
      responses: { 200: { description: "The naming convention.", content: json(envelope(AdsNaming)) }, ...errorResponses("admin", [401, 404, 422]) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      await requireCustomer(deps, id);
      return c.json({ data: await getNaming(deps.db, id), request_id: c.get("requestId") }, 200);
    },
  );

  router.openapi(
    createRoute({
      method: "patch",
      path: "/v1/customers/{id}/ads/naming",
      operationId: "updateCustomerAdNaming",
      tags: ["Ads naming"],
      summary: "Change the naming convention",
      description:
        "Tokens: `{target}` (target key), `{date}` (UTC day of creation, YYYYMMDD), `{seq}` (required; at least three digits, counted per distinct rest of the name, never reused), and for ads `{adset}` (the ad set's name). null restores the default. Existing names do not change.",
      security,
      request: { params: CustomerIdParam, body: { required: true, content: json(UpdateAdsNaming) } },
      responses: { 200: { description: "The naming convention.", content: json(envelope(AdsNaming)) }, ...errorResponses("admin", [400, 401, 404, 422]) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      await requireCustomer(deps, id);
      return c.json({ data: await setNaming(deps.db, id, c.req.valid("json"), deps.clock.now()), request_id: c.get("requestId") }, 200);
    },
  );
}
