import type { RouteGroup } from "../../core/route-groups";
import type { AdsDeps } from "../../ads";
import type { AdminDeps } from "../deps";
import type { AdminRouter } from "./shared";

/**
 * Every operator route group, in the order the admin document lists them; each is imported at the first
 * request under one of its paths (lib/core/route-groups.ts). `*` is one path segment (a customer's id).
 */
export const adminRouteGroups: RouteGroup<AdminDeps>[] = [
  { paths: ["/v1/customers"], load: async () => (await import("./customers")).registerCustomerRoutes },
  { paths: ["/v1/customers/*/keys", "/v1/keys"], load: async () => (await import("./keys")).registerKeyRoutes },
  { paths: ["/v1/customers/*/mail", "/v1/mail"], load: async () => (await import("./mail")).registerMailAdminRoutes },
  { paths: ["/v1/customers/*/ads", "/v1/ads"], load: async () => wrapAds((await import("./ads")).registerAdsAdminRoutes) },
  // What the operator console reads beside the settings: draft previews, a customer's activity.
  { paths: ["/v1/mail/blocks/preview"], load: async () => (await import("./mail/blocks/preview-draft")).registerMailBlockPreviewRoute },
  { paths: ["/v1/customers/*/mail"], load: async () => (await import("./mail/activity")).registerMailActivityRoutes },
  { paths: ["/v1/customers/*/mail"], load: async () => (await import("./mail/deliverability")).registerMailDeliverabilityRoutes },
  { paths: ["/v1/customers/*/mail/messages"], load: async () => (await import("./mail/messages")).registerCustomerMessageRoutes },
  { paths: ["/v1/customers/*/mail/stats"], load: async () => (await import("./mail/stats/get")).registerGetCustomerMailStats },
  { paths: ["/v1/customers/*/mail/suppressions"], load: async () => (await import("./mail/suppressions")).registerCustomerSuppressionRoutes },
  { paths: ["/v1/customers/*/mail/webhooks", "/v1/customers/*/ads/webhooks"], load: async () => (await import("./webhooks")).registerCustomerWebhookRoutes },
  { paths: ["/v1/customers/*/ads", "/v1/ads/templates/preview"], load: async () => wrapAds((await import("./ads/activity")).registerAdsActivityRoutes) },
  {
    paths: ["/v1/customers/*/ads/insights/daily"],
    load: async () => wrapAds((await import("./ads/daily-insights/get")).registerGetCustomerAdSetDailyInsights),
  },
  { paths: ["/v1/overview", "/v1/search"], load: async () => (await import("./overview")).registerOverviewRoutes },
  { paths: ["/v1/system"], load: async () => (await import("./system/get")).registerGetSystem },
  // Operators, the caller's own account, and the audit log.
  { paths: ["/v1/operators"], load: async () => (await import("./operators")).registerOperatorRoutes },
  { paths: ["/v1/me"], load: async () => (await import("./me")).registerCurrentOperatorRoutes },
  { paths: ["/v1/sign-in-policy"], load: async () => (await import("./sign-in-policy")).registerSignInPolicyRoutes },
  { paths: ["/v1/audit-log"], load: async () => (await import("./audit-log/list")).registerListAuditLog },
];

/** The ads side's routes take the ads service's dependencies. */
function wrapAds(register: (router: AdminRouter, deps: AdsDeps) => void): (router: AdminRouter, deps: AdminDeps) => void {
  return (router, deps) => register(router, deps.ads);
}
