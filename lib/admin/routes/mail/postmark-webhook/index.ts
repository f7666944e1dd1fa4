import type { AdminDeps } from "../../../deps";
import type { CoreDeps } from "../../../../core/context";
import type { AdminRouter } from "../../shared";
import { registerGetCustomerPostmarkWebhook } from "./get";
import { registerRevealCustomerPostmarkWebhook } from "./reveal";
import { registerRotateCustomerPostmarkWebhookPassword } from "./rotate-password";

export function registerMailPostmarkWebhookRoutes(router: AdminRouter, deps: CoreDeps & Pick<AdminDeps, "mailProviderChanged">): void {
  registerGetCustomerPostmarkWebhook(router, deps);
  registerRevealCustomerPostmarkWebhook(router, deps);
  registerRotateCustomerPostmarkWebhookPassword(router, deps);
}
