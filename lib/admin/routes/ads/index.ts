import type { AdsDeps } from "../../../ads";
import type { AdminRouter } from "../shared";
import { registerAdsAccountRoutes } from "./account";
import { registerAdsNamingRoutes } from "./naming";
import { registerAdsReviewRoutes } from "./review";
import { registerAdsTargetRoutes } from "./targets";
import { registerAdsTemplateRoutes } from "./templates";

/** The operator's side of the ads service: per customer the ad account onboarding, targets and naming; ad templates; ad sets and ads with their review state. */
export function registerAdsAdminRoutes(router: AdminRouter, deps: AdsDeps): void {
  registerAdsAccountRoutes(router, deps);
  registerAdsTargetRoutes(router, deps);
  registerAdsNamingRoutes(router, deps);
  registerAdsTemplateRoutes(router, deps);
  registerAdsReviewRoutes(router, deps);
}
