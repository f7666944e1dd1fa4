import type { AdminDeps } from "../../deps";
import type { CoreDeps } from "../../../core/context";
import type { AdminRouter } from "../shared";
import { registerMailBlockRoutes } from "./blocks";
import { registerMailDesignRoutes } from "./design";
import { registerMailFrameRoutes } from "./frame";
import { registerMailPostmarkWebhookRoutes } from "./postmark-webhook";
import { registerMailProviderRoutes } from "./provider";
import { registerMailTemplateRoutes } from "./templates";

/**
 * The operator's side of the mail service: block library, and per customer design, frame, provider,
 * templates and the Postmark webhook credentials.
 */
export function registerMailAdminRoutes(router: AdminRouter, deps: CoreDeps & Pick<AdminDeps, "mailProviderChanged" | "mail">): void {
  registerMailBlockRoutes(router, deps);
  registerMailDesignRoutes(router, deps);
  registerMailFrameRoutes(router, deps);
  registerMailProviderRoutes(router, deps);
  registerMailTemplateRoutes(router, deps);
  registerMailPostmarkWebhookRoutes(router, deps);
}
