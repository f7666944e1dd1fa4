import type { AdsDeps } from "../../../../ads";
import type { AdminRouter } from "../../shared";
import { registerGetCustomerAdNaming } from "./get";
import { registerUpdateCustomerAdNaming } from "./update";

export function registerAdsNamingRoutes(router: AdminRouter, deps: AdsDeps): void {
  registerGetCustomerAdNaming(router, deps);
  registerUpdateCustomerAdNaming(router, deps);
}
