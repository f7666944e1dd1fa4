import type { AdsDeps } from "../../../../ads";
import type { AdminRouter } from "../../shared";
import { registerCreateCustomerAdTarget } from "./create";
import { registerGetCustomerAdTarget } from "./get";
import { registerListCustomerAdTargets } from "./list";
import { registerUpdateCustomerAdTarget } from "./update";

export function registerAdsTargetRoutes(router: AdminRouter, deps: AdsDeps): void {
  registerCreateCustomerAdTarget(router, deps);
  registerListCustomerAdTargets(router, deps);
  registerGetCustomerAdTarget(router, deps);
  registerUpdateCustomerAdTarget(router, deps);
}
