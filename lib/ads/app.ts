import type { OpenAPIHono } from "@hono/zod-openapi";
import { createServiceApp } from "../core/app";
import type { AppEnv } from "../core/context";
import { registerDocs } from "../core/docs";
import { registerGetCurrentKey } from "../core/current-key";
import { registerGetHealth } from "../core/health";
import { lazyRouteGroups } from "../core/route-groups";
import type { AdsDeps } from "./deps";
import { adsRouteGroups } from "./routes";

export type { AdsDeps };

const ADS_DESCRIPTION = `Meta's Marketing API (Graph API v25.0) behind a uniform, versioned API: media, ad sets, creatives, ads, template-rendered creatives, audiences, targeting, insights, status webhooks and plan.

Conventions: every response is \`{ data, request_id }\`; lists take \`limit\` (default 25, max 100) and \`offset\` (default 0). Errors are \`{ error: { code, message, details }, request_id }\` where \`details\` is \`[{ field, issue }]\` for validation errors, \`{ missing }\` for incomplete onboarding, \`{ locked_fields }\` for fields set by the target configuration. A missing required field answers 400; present but invalid fields answer 422. Another customer's id answers 404. A known path with the wrong method answers 405 with \`Allow\`. Every group is also served under \`/v1/platform/{group}\` (\`/v1/platform/adsets\`, \`/v1/platform/media/images\`, …): an alias of \`/v1/{group}\` with the same behaviour, not listed separately in this document; \`/v1/{group}\` is canonical.

Onboarding: the operator connects the customer's ad account (token, app secret, ad account, page, Instagram account, DSA beneficiary/payor, legal name) and sets up targets. Until then media calls answer 422 with \`details.missing\` for the token and ad account, ad sets and ads for anything missing. When the platform refuses the stored token later (expired, revoked), from the call that meets the refusal (Graph code 190, any subcode) on, every call that needs the platform answers 422 \`details.missing: ["access_token"]\` until the operator sets a new token. Other refusals by the platform: 422 naming the field when the platform blames one or writes a message for the user (codes 100, 368, 506), 429 with \`Retry-After\` when it throttles (4, 17, 32, 341, 613, 80000–80014), 500 with \`Retry-After\` when it is down (1, 2), 500 for what only the operator can fix (permissions 10 and 200–299, our own requests). Names of ad sets and ads follow the operator's naming convention (default \`{target}-{YYYYMMDD}-{seq}\` and \`{adset}-ad{seq}\`).

Platform errors: a problem the platform blames on a field answers 422 with that field in \`details\` (Graph names translated, e.g. \`daily_budget\` → \`daily_budget_cents\`); platform rate limits are retried with backoff, then answer 429 with \`Retry-After\`; everything else (credentials, outages) answers 500 \`internal_error\`, and credential problems are logged for the operator.

Write access: a deactivated account, overdue payment, open checkout or ended contract answers 402 \`payment_required\` on writes; reads stay available while deactivated or overdue. Publishing beyond the plan's included ads answers 402 \`quota_exceeded\`.

Rate limit: 1,000 requests per minute per customer with \`X-RateLimit-*\` and \`RateLimit-Policy\`/\`RateLimit\` headers; 429 with \`Retry-After\`.

Idempotency: \`Idempotency-Key\` on POST/PUT/PATCH; the first response is kept 24 hours and replayed with \`Idempotent-Replayed: true\`; another body under the same key answers 409.

Request bodies: at most 4.5 MB (4,718,592 bytes). A larger body answers 413 \`payload_too_large\` as soon as it passes the limit while streaming in, before authentication, and the connection is closed; the rest is never read. \`GET\`, \`HEAD\` and \`OPTIONS\` take no body (one sent answers 413).`;

/** The HTTP app only; the queue workers of the ads service are registered by the runtime (`registerAdsWorkers`). */
export function createAdsApp(deps: AdsDeps): OpenAPIHono<AppEnv> {
  const routes = lazyRouteGroups(deps, adsRouteGroups);
  const app = createServiceApp({
    service: "ads",
    mountPath: "/ads",
    deps,
    routeGroups: routes,
  });
  registerGetHealth(app, deps, "ads");
  registerGetCurrentKey(app, deps, "ads");
  // The route groups, at their first request; the document lists them in their declared order.
  routes.place(app);
  registerDocs(app, { service: "ads", title: "Ads service API", description: ADS_DESCRIPTION, basePath: "/ads", pathPrefix: "/v1" }, async (router) => {
    registerGetHealth(router, deps, "ads");
    registerGetCurrentKey(router, deps, "ads");
    await routes.registerAll(router);
  });
  return app;
}
