import type { AdminDeps } from "../deps";
import { registerAdsAdminRoutes } from "./ads";
import { registerCustomerRoutes } from "./customers";
import { registerKeyRoutes } from "./keys";
import { registerMailAdminRoutes } from "./mail";
import type { AdminRouter } from "./shared";
import { registerMailBlockPreviewRoute } from "./mail/blocks/preview-draft";
import { registerMailActivityRoutes } from "./mail/activity";
import { registerAdsActivityRoutes } from "./ads/activity";
import { registerGetSystem } from "./system/get";
import { registerOperatorRoutes } from "./operators";
import { registerCurrentOperatorRoutes } from "./me";
import { registerListAuditLog } from "./audit-log/list";
import { registerCustomerMessageRoutes } from "./mail/messages";
import { registerCustomerSuppressionRoutes } from "./mail/suppressions";
import { registerCustomerWebhookRoutes } from "./webhooks";
import { registerGetCustomerMailStats } from "./mail/stats/get";
import { registerGetCustomerAdSetDailyInsights } from "./ads/daily-insights/get";

/** Every operator route, in the order the admin document lists them. */
export function registerAdminRoutes(router: AdminRouter, deps: AdminDeps): void {
  registerCustomerRoutes(router, deps);
  registerKeyRoutes(router, deps);
  registerMailAdminRoutes(router, deps);
  registerAdsAdminRoutes(router, deps.ads);
  // What the operator console reads beside the settings: draft previews, a customer's activity.
  registerMailBlockPreviewRoute(router, deps);
  registerMailActivityRoutes(router, deps);
  registerCustomerMessageRoutes(router, deps);
  registerGetCustomerMailStats(router, deps);
  registerCustomerSuppressionRoutes(router, deps);
  registerCustomerWebhookRoutes(router, deps);
  registerAdsActivityRoutes(router, deps.ads);
  registerGetCustomerAdSetDailyInsights(router, deps.ads);
  registerGetSystem(router, deps);
  // Operators, the caller's own account, and the audit log.
  registerOperatorRoutes(router, deps);
  registerCurrentOperatorRoutes(router, deps);
  registerListAuditLog(router, deps);
}
