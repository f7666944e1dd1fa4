import type { CoreDeps } from "../../../../core/context";
import type { AdminRouter } from "../../shared";
import { registerGetCustomerMessage } from "./get";
import { registerListCustomerMessages } from "./list";

/** A customer's messages for support questions: search (by recipient through its hash) and one message's timeline. */
export function registerCustomerMessageRoutes(router: AdminRouter, deps: CoreDeps): void {
  registerListCustomerMessages(router, deps);
  registerGetCustomerMessage(router, deps);
}
