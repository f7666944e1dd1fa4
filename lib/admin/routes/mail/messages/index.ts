import type { CoreDeps } from "../../../../core/context";
import type { AdminRouter } from "../../shared";
import { registerGetCustomerMessageContent } from "./content";
import { registerGetCustomerMessage } from "./get";
import { registerListCustomerMessages } from "./list";

/** A customer's messages for support questions: search (by recipient through its hash) one message's timeline and its content. */
export function registerCustomerMessageRoutes(router: AdminRouter, deps: CoreDeps): void {
  registerListCustomerMessages(router, deps);
  registerGetCustomerMessage(router, deps);
  registerGetCustomerMessageContent(router, deps);
}
