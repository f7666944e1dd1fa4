import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import type { AdsDeps } from "../../deps";
import { deactivateAccount } from "../../plan/service";
import { openapiWithAlias, type AdsRouter } from "../shared";
import { Deactivation } from "../../plan/schema";
import { json } from "../../../core/json";

export function registerDeactivateAccount(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "write", {
    method: "post",
    path: "/v1/account/deactivate",
    operationId: "deactivateAccount",
    tags: ["Plan"],
    summary: "Deactivate the account",
    description:
      "Free of charge (0 EUR). From now on every write answers 402 `payment_required`; reads (insights, plan, lists) keep working. Ads already running are not touched by this call. Only the operator reactivates (admin API, `ads.account_state: active`). A second call answers 402 like every write of a deactivated account.",
    responses: { 200: { description: "Deactivated.", content: json(envelope(Deactivation)) }, ...errorResponses("ads", [401, 402, 403, 409, 429, 500]) },
  });
  openapiWithAlias(router, route, async (c) =>
    c.json({ data: await deactivateAccount(deps, c.get("principal").customerId), request_id: c.get("requestId") }, 200),
  );
}
