import type { CoreDeps } from "../../../../core/context";
import type { AdminRouter } from "../../shared";
import { registerGetCustomerDesignRules } from "./get";
import { registerSetCustomerDesignRules } from "./set";

export function registerMailDesignRoutes(router: AdminRouter, deps: CoreDeps): void {
  registerGetCustomerDesignRules(router, deps);
  registerSetCustomerDesignRules(router, deps);
}
