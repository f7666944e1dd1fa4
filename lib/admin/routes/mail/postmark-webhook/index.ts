import type { CoreDeps } from "../../../../core/context";
import type { Providers } from "../../../../providers";
import type { AdminRouter } from "../../shared";
import { registerGetCustomerPostmarkWebhook } from "./get";
import { registerRotateCustomerPostmarkWebhookPassword } from "./rotate-password";

export function registerMailPostmarkWebhookRoutes(router: AdminRouter, deps: CoreDeps & { providers: Pick<Providers, "postmarkSimulator"> }): void {
  registerGetCustomerPostmarkWebhook(router, deps);
  registerRotateCustomerPostmarkWebhookPassword(router, deps);
}
