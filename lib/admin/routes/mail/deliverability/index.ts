import type { AdminDeps } from "../../../deps";
import type { AdminRouter } from "../../shared";
import { registerReputationRoutes } from "./reputation";
import { registerSenderCheckRoutes } from "./senders";

/** Deliverability: senders and domains as Postmark confirms them, reputation figures, the guard's thresholds and resume. */
export function registerMailDeliverabilityRoutes(router: AdminRouter, deps: AdminDeps): void {
  registerSenderCheckRoutes(router, deps);
  registerReputationRoutes(router, deps);
}
