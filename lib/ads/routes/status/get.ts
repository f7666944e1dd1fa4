import { z } from "@hono/zod-openapi";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import { checkAdStatus } from "../../ad/service";
import type { AdsDeps } from "../../deps";
import { openapiWithAlias, type AdsRouter } from "../shared";
import { AdLiveStatus } from "../../ad/schema";
import { json } from "../../../core/json";

export function registerGetAdStatus(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "read", {
    method: "get",
    path: "/v1/status/{ad_id}",
    operationId: "getAdStatus",
    tags: ["Status"],
    summary: "Live status of an ad",
    description:
      "Asks the platform now for the ad's `effective_status` and review feedback and stores the answer as the cached value GET /v1/ads shows. A new ad is `PENDING_REVIEW` (with some edits first `IN_PROCESS`, which can end in `WITH_ISSUES`), then `ACTIVE`, `PAUSED` (or `ADSET_PAUSED`/`CAMPAIGN_PAUSED`) or `DISAPPROVED` with `disapproval_reason`. A change this read finds is also sent as `ad.status_changed` to your webhooks, once (see `POST /v1/webhooks`); webhooks spare you polling this endpoint. Reporting scope suffices.",
    request: {
      params: z.object({
        ad_id: z.uuid().openapi({ param: { name: "ad_id", in: "path" }, description: "Ad id (UUID).", example: "5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a" }),
      }),
    },
    responses: { 200: { description: "The live status.", content: json(envelope(AdLiveStatus)) }, ...errorResponses("ads", [401, 402, 404, 422, 429, 500]) },
  });
  openapiWithAlias(router, route, async (c) => {
    const status = await checkAdStatus(deps, c.get("principal").customerId, c.req.valid("param").ad_id);
    return c.json({ data: status, request_id: c.get("requestId") }, 200);
  });
}
