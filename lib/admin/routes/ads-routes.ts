import type { OpenAPIHono } from "@hono/zod-openapi";
import { createAdsDeps, type AdsDepsInput } from "../../ads/deps";
import type { AppEnv } from "../../core/context";
import { registerAdsAccountRoutes } from "./ads-account";
import { registerAdsNamingRoutes } from "./ads-naming";
import { registerAdsTargetRoutes } from "./ads-targets";
import { registerAdsTemplateRoutes } from "./ads-templates";

/** The operator's side of the ads service: per customer the ad account onboarding, targets and naming; ad templates. */
export function registerAdsAdminRoutes(router: OpenAPIHono<AppEnv>, input: AdsDepsInput): void {
  const deps = createAdsDeps(input);
  registerAdsAccountRoutes(router, deps);
  registerAdsTargetRoutes(router, deps);
  registerAdsNamingRoutes(router, deps);
  registerAdsTemplateRoutes(router, deps);
}
