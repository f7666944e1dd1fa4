import type { OpenAPIHono } from "@hono/zod-openapi";
import { createServiceApp } from "../core/app";
import type { AppEnv, CoreDeps } from "../core/context";
import { registerDocs } from "../core/docs";
import { registerGetHealth } from "../core/health";

export type AdsDeps = CoreDeps;

export const ADS_DESCRIPTION = `Meta's Marketing API (Graph API v25.0) behind a uniform, versioned API: media, ad sets, creatives, ads, template-rendered creatives, audiences, targeting, insights, status webhooks and plan.

Conventions: every response is \`{ data, request_id }\`; lists take \`limit\` (default 25, max 100) and \`offset\` (default 0). Errors are \`{ error: { code, message, details }, request_id }\` where \`details\` is \`[{ field, issue }]\` for validation errors, \`{ missing }\` for incomplete onboarding, \`{ locked_fields }\` for fields set by the target configuration. A missing required field answers 400; present but invalid fields answer 422. Another customer's id answers 404. A known path with the wrong method answers 405 with \`Allow\`. Every group is also served under \`/v1/platform/{group}\` (alias of \`/v1/{group}\`).

Write access: a deactivated account, overdue payment, open checkout or ended contract answers 402 \`payment_required\` on writes; reads stay available while deactivated or overdue. Publishing beyond the plan's included ads answers 402 \`quota_exceeded\`.

Rate limit: 1,000 requests per minute per customer with \`X-RateLimit-*\` and \`RateLimit-Policy\`/\`RateLimit\` headers; 429 with \`Retry-After\`.

Idempotency: \`Idempotency-Key\` on POST/PUT/PATCH; the first response is kept 24 hours and replayed with \`Idempotent-Replayed: true\`; another body under the same key answers 409.`;

export function createAdsApp(deps: AdsDeps): OpenAPIHono<AppEnv> {
  const app = createServiceApp({
    service: "ads",
    mountPath: "/ads",
    deps,
    publicPaths: ["/v1/openapi.json", "/v1/docs", "/v1/docs/scalar.js", "/v1/llms.txt"],
  });
  registerGetHealth(app, deps, "ads");
  registerDocs(app, { title: "Ads service API", description: ADS_DESCRIPTION, basePath: "/ads", pathPrefix: "/v1" });
  return app;
}
