import type { CoreDeps } from "../../../../core/context";
import type { AdminRouter } from "../../shared";
import { registerGetCustomerFrame } from "./get";
import { registerSetCustomerFrame } from "./set";

export function registerMailFrameRoutes(router: AdminRouter, deps: CoreDeps): void {
  registerGetCustomerFrame(router, deps);
  registerSetCustomerFrame(router, deps);
}
