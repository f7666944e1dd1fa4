import type { AdsDeps } from "../deps";
import { registerAdRoutes } from "./ads";
import { registerAdSetRoutes } from "./adsets";
import { registerAudienceRoutes } from "./audiences";
import { registerCreativeRoutes } from "./creatives";
import { registerInsightsRoutes } from "./insights";
import { registerPlanRoutes } from "./plan";
import { registerMediaRoutes } from "./media";
import type { AdsRouter } from "./shared";
import { registerGetAdStatus } from "./status/get";
import { registerTargetingRoutes } from "./targeting";
import { registerTemplateRoutes } from "./templates";
import { registerWebhookRoutes } from "./webhooks";

/** Media, ad sets, creatives, ads, status, templates, insights and plan, each under `/v1/{group}` and `/v1/platform/{group}`. */
export function registerAdsRoutes(router: AdsRouter, deps: AdsDeps): void {
  registerMediaRoutes(router, deps);
  registerAdSetRoutes(router, deps);
  registerCreativeRoutes(router, deps);
  registerAdRoutes(router, deps);
  registerGetAdStatus(router, deps);
  registerTemplateRoutes(router, deps);
  registerAudienceRoutes(router, deps);
  registerTargetingRoutes(router, deps);
  registerWebhookRoutes(router, deps);
  registerInsightsRoutes(router, deps);
  registerPlanRoutes(router, deps);
}
