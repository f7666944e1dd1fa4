import type { AdsDeps } from "../../deps";
import type { AdsRouter } from "../shared";
import { registerDeactivateAccount } from "./deactivate";
import { registerGetPlan } from "./get";
import { registerUpgradePlan } from "./upgrade";
import { registerGetPlanUsage } from "./usage";

export function registerPlanRoutes(router: AdsRouter, deps: AdsDeps): void {
  registerGetPlan(router, deps);
  registerGetPlanUsage(router, deps);
  registerUpgradePlan(router, deps);
  registerDeactivateAccount(router, deps);
}
