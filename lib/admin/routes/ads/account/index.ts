import type { AdsDeps } from "../../../../ads";
import type { AdminRouter } from "../../shared";
import { registerGetCustomerAdAccount } from "./get";
import { registerUpdateCustomerAdAccount } from "./update";

export function registerAdsAccountRoutes(router: AdminRouter, deps: AdsDeps): void {
  registerGetCustomerAdAccount(router, deps);
  registerUpdateCustomerAdAccount(router, deps);
}
