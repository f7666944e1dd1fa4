import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AdsDeps } from "../../ads/deps";
import { getOnboarding, updateOnboarding } from "../../ads/onboarding/service";
import type { AppEnv } from "../../core/context";
import { NotFoundError } from "../../core/errors";
import { envelope, errorResponses } from "../../core/openapi";
import { getCustomer } from "../customers";
import { AdsOnboarding, UpdateAdsOnboarding } from "./ads-schema";
import { CustomerIdParam } from "./schema";

const security = [{ adminToken: [] }];
const json = <T extends z.ZodType>(schema: T) => ({ "application/json": { schema } });

export async function requireCustomer(deps: AdsDeps, id: string): Promise<void> {
  if (!(await getCustomer(deps.db, id))) throw new NotFoundError("Customer");
}

export function registerAdsAccountRoutes(router: OpenAPIHono<AppEnv>, deps: AdsDeps): void {
  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/customers/{id}/ads/account",
      operationId: "getCustomerAdAccount",
      tags: ["Ads onboarding"],
      summary: "Show a customer's ad account onboarding",
      description:
        "Which onboarding items are present and which are missing. Nothing stored is returned: the token and app secret show as `*_set` flags, the account identifiers and legal details (sealed at rest like the secrets) only in `present`/`missing`. `token_status` shows whether the platform accepts the stored token: when any platform call is refused with Graph code 190 (expired, revoked), the refusal is recorded here with its time and Graph code/subcode (never the token), `access_token` moves to `missing`, and customers' calls that need the platform answer 422 `details.missing: [\"access_token\"]` until a new token is set with PATCH.",
      security,
      request: { params: CustomerIdParam },
      responses: { 200: { description: "The onboarding.", content: json(envelope(AdsOnboarding)) }, ...errorResponses("admin", [401, 404, 422]) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      await requireCustomer(deps, id);
      return c.json({ data: await getOnboarding(deps.db, id), request_id: c.get("requestId") }, 200);
    },
  );

  router.openapi(
    createRoute({
      method: "patch",
      path: "/v1/customers/{id}/ads/account",
      operationId: "updateCustomerAdAccount",
      tags: ["Ads onboarding"],
      summary: "Set a customer's ad account onboarding",
      description:
        "Partial update; null clears a field. Every field is sealed (AES-256-GCM) before it is stored and never returned; `present` and `missing` show what is set. When the token, the app secret or the ad account changes and both secrets are known, the platform is asked first (`GET /me` with `appsecret_proof`, then the ad account): a refusal answers 422 on `access_token` or `ad_account_id` and stores nothing. A change that the platform accepts clears a recorded token refusal (`token_status` back to `verified`); sending the same token again re-verifies it.",
      security,
      request: { params: CustomerIdParam, body: { required: true, content: json(UpdateAdsOnboarding) } },
      responses: { 200: { description: "The onboarding.", content: json(envelope(AdsOnboarding)) }, ...errorResponses("admin", [400, 401, 404, 422, 429, 500]) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      await requireCustomer(deps, id);
      return c.json({ data: await updateOnboarding(deps, id, c.req.valid("json")), request_id: c.get("requestId") }, 200);
    },
  );
}
