import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../../core/context";
import type { AdsDeps } from "../../../../ads";
import { registerGetCustomerAdsPlanUsage } from "./get-plan-usage";
import { registerGetCustomerAdsInsights } from "./get-insights";
import { registerGetCustomerAdTemplatePreview } from "./get-template-preview";
import { registerPreviewAdTemplateDraft } from "./preview-template-draft";

/**
 * What a customer sees of its own ads, read by the operator: plan usage, insights and the template previews
 * (the same services and schemas as the ads service's routes); and the live preview of a template draft.
 */
export function registerAdsActivityRoutes(router: OpenAPIHono<AppEnv>, deps: AdsDeps): void {
  // The order of registration is the order of the OpenAPI document's paths.
  registerGetCustomerAdsPlanUsage(router, deps);
  registerGetCustomerAdsInsights(router, deps);
  registerGetCustomerAdTemplatePreview(router, deps);
  registerPreviewAdTemplateDraft(router, deps);
}
