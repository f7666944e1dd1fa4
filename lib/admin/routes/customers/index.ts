import type { CoreDeps } from "../../../core/context";
import type { AdminRouter } from "../shared";
import { registerCreateCustomer } from "./create";
import { registerGetCustomer } from "./get";
import { registerListCustomers } from "./list";
import { registerUpdateCustomer } from "./update";

export function registerCustomerRoutes(router: AdminRouter, deps: CoreDeps): void {
  registerCreateCustomer(router, deps);
  registerListCustomers(router, deps);
  registerGetCustomer(router, deps);
  registerUpdateCustomer(router, deps);
}
