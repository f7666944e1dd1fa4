import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import { ApiError } from "../../../core/errors";
import { createAd } from "../../ad/service";
import type { AdsDeps } from "../../deps";
import { openapiWithAlias, type AdsRouter } from "../shared";
import { Ad, CreateAd } from "../../ad/schema";
import { json } from "../../../core/json";

export function registerCreateAd(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "write", {
    method: "post",
    path: "/v1/ads",
    operationId: "createAd",
    tags: ["Ads"],
    summary: "Publish an ad",
    description: `Builds the final creative from a draft — one platform creative with three placement ratios (1:1 default, 4:5 feed, 9:16 stories and reels) plus the ad's copy, \`link\` (tracking parameters appended by us), \`display_link\` and call to action — and creates the ad, PAUSED unless \`status: ACTIVE\`. A creative that is already final is reused as it is: its copy and link fields in this request are ignored. Every new ad goes through the platform's review: \`effective_status\` starts as \`PENDING_REVIEW\`; poll GET /v1/status/{ad_id}.

Checks, in this order: missing required field → 400; invalid fields → 422 (message ≤ 125, headline ≤ 40, description ≤ 25, call to action from the list, tracking parameters in \`link\`); incomplete onboarding → 422 \`details.missing\` (also \`["access_token"]\` once the platform has refused the stored token, until the operator sets a new one); unknown ad set or creative → 422; archived ad set or creative → 409; target paused → 409; \`link\` missing while the creative is a draft → 422; more ads published this calendar month (UTC) than the stage includes (Starter 5, Growth 25, Scale 100, Enterprise as agreed; archived ads count, and so do ads being published at this moment: of several requests racing for the last included ad exactly one is published, and a publish that fails on the platform gives its slot back) → 402 \`quota_exceeded\`; a video creative whose video is not READY → 409 (FAILED → 422). The answer is the whole ad (a superset of \`{ id, platform_ad_id, platform_creative_id, name, status }\`).`,
    request: { body: { required: true, content: json(CreateAd) } },
    responses: { 201: { description: "The new ad.", content: json(envelope(Ad)) }, ...errorResponses("ads", [400, 401, 402, 403, 409, 422, 429, 500]) },
  });
  openapiWithAlias(router, route, async (c) => {
    const principal = c.get("principal");
    if (!principal.ads) throw new ApiError("internal_error", "Ads settings of this customer are missing.");
    const ad = await createAd(deps, principal.customerId, c.req.valid("json"));
    return c.json({ data: ad, request_id: c.get("requestId") }, 201);
  });
}
