import { adminRoute } from "../../../access";
import type { AdsDeps } from "../../../../ads";
import { findTargetByKey, toTargetView } from "../../../../ads";
import { AdminTarget } from "../../../../ads";
import { NotFoundError } from "../../../../core/errors";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import type { AdminRouter } from "../../shared";
import { TargetKeyParams } from "../../../ads/targets/schema";

export function registerGetCustomerAdTarget(router: AdminRouter, deps: AdsDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "get",
        path: "/v1/customers/{id}/ads/targets/{key}",
        operationId: "getCustomerAdTarget",
        tags: ["Ads targets"],
        summary: "Get a target",
        request: { params: TargetKeyParams },
        responses: { 200: { description: "The target.", content: json(envelope(AdminTarget)) }, ...errorResponses("admin", [401, 404, 422]) },
      },
      { target: ["customer", "target"] },
    ),
    async (c) => {
      const { id, key } = c.req.valid("param");
      const target = await findTargetByKey(deps.db, id, key);
      if (!target) throw new NotFoundError("Target");
      return c.json({ data: toTargetView(target), request_id: c.get("requestId") }, 200);
    },
  );
}
