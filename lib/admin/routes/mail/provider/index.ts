import type { AdminDeps } from "../../../deps";
import type { CoreDeps } from "../../../../core/context";
import type { AdminRouter } from "../../shared";
import { registerGetCustomerMailProvider } from "./get";
import { registerGetCustomerMailReadiness } from "./readiness";
import { registerUpdateCustomerMailProvider } from "./update";

export function registerMailProviderRoutes(router: AdminRouter, deps: CoreDeps & Pick<AdminDeps, "mailProviderChanged" | "mail">): void {
  registerGetCustomerMailProvider(router, deps);
  registerUpdateCustomerMailProvider(router, deps);
  registerGetCustomerMailReadiness(router, deps);
}
