import type { CoreDeps } from "../../../../core/context";
import type { Providers } from "../../../../providers";
import type { AdminRouter } from "../../shared";
import { registerGetCustomerMailProvider } from "./get";
import { registerGetCustomerMailReadiness } from "./readiness";
import { registerUpdateCustomerMailProvider } from "./update";

export function registerMailProviderRoutes(router: AdminRouter, deps: CoreDeps & { providers: Pick<Providers, "postmarkSimulator"> }): void {
  registerGetCustomerMailProvider(router, deps);
  registerUpdateCustomerMailProvider(router, deps);
  registerGetCustomerMailReadiness(router, deps);
}
