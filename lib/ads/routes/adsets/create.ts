import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import { createAdSet } from "../../adsets/service";
import type { AdsDeps } from "../../deps";
import { openapiWithAlias, rejectLockedFields, type AdsRouter } from "../shared";
import { AD_SET_LOCKED_FIELDS, AdSet, CreateAdSet } from "../../adsets/schema";
import { json } from "../../../core/json";

export function registerCreateAdSet(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "write", {
    method: "post",
    path: "/v1/adsets",
    operationId: "createAdSet",
    tags: ["Ad sets"],
    summary: "Create an ad set",
    description: `Creates an ad set under the target's campaign, here and on the platform, with status ACTIVE (it delivers nothing until an ad in it is active). The name comes from the naming convention the operator set (default \`{target}-{YYYYMMDD}-{seq}\`, e.g. \`demo-20260115-001\`); optimization, billing, bid strategy, promoted object, location, placements, devices and DSA data come from the target configuration and the onboarding.

Checks, in this order: locked fields sent → 422 \`details.locked_fields\` (${AD_SET_LOCKED_FIELDS.join(", ")}); missing required field → 400; invalid fields → 422 (exactly one budget; a lifetime budget needs \`end_time\`; ages 13–65 with age_min ≤ age_max); incomplete onboarding → 422 \`details.missing\`; unknown target → 422; target paused → 409; then the platform's own checks (e.g. a budget below its minimum → 422 on \`daily_budget_cents\`). The answer is the whole ad set (a superset of \`{ id, platform_adset_id, name }\`).`,
    middleware: [rejectLockedFields(AD_SET_LOCKED_FIELDS)],
    request: { body: { required: true, content: json(CreateAdSet) } },
    responses: { 201: { description: "The new ad set.", content: json(envelope(AdSet)) }, ...errorResponses("ads", [400, 401, 402, 403, 409, 422, 429, 500]) },
  });
  openapiWithAlias(router, route, async (c) => {
    const adSet = await createAdSet(deps, c.get("principal").customerId, c.req.valid("json"));
    return c.json({ data: adSet, request_id: c.get("requestId") }, 201);
  });
}
