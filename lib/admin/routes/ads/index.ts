import { createAdsDeps, type AdsDepsInput } from "../../../ads/deps";
import type { AdminRouter } from "../shared";
import { registerAdsAccountRoutes } from "./account";
import { registerAdsNamingRoutes } from "./naming";
import { registerAdsTargetRoutes } from "./targets";
import { registerAdsTemplateRoutes } from "./templates";

/** The operator's side of the ads service: per customer the ad account onboarding, targets and naming; ad templates. */
export function registerAdsAdminRoutes(router: AdminRouter, input: AdsDepsInput): void {
  const deps = createAdsDeps(input);
  registerAdsAccountRoutes(router, deps);
  registerAdsTargetRoutes(router, deps);
  registerAdsNamingRoutes(router, deps);
  registerAdsTemplateRoutes(router, deps);
}
