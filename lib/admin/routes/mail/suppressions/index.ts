import type { AdminDeps } from "../../../deps";
import type { AdminRouter } from "../../shared";
import { registerListCustomerSuppressions } from "./list";
import { registerReactivateCustomerSuppression } from "./reactivate";

/** A customer's suppression mirror: the paged list (or CSV) and reactivation, with the mail service's rules. */
export function registerCustomerSuppressionRoutes(router: AdminRouter, deps: AdminDeps): void {
  registerListCustomerSuppressions(router, deps);
  registerReactivateCustomerSuppression(router, deps);
}
