import type { RouteGroup } from "../../core/route-groups";
import type { AdsDeps } from "../deps";

/** A group's canonical prefix and its `/v1/platform/…` alias (`openapiWithAlias` registers both). */
function withAlias(...prefixes: string[]): string[] {
  return prefixes.flatMap((prefix) => [prefix, prefix.replace(/^\/v1\//, "/v1/platform/")]);
}

/**
 * Media, ad sets, creatives, ads, status, templates, audiences, targeting, webhooks, insights and plan, each
 * under `/v1/{group}` and `/v1/platform/{group}`, in the document's order; each is imported at the first
 * request under one of its paths (lib/core/route-groups.ts).
 */
export const adsRouteGroups: RouteGroup<AdsDeps>[] = [
  { paths: withAlias("/v1/media"), load: async () => (await import("./media")).registerMediaRoutes },
  { paths: withAlias("/v1/adsets"), load: async () => (await import("./adsets")).registerAdSetRoutes },
  { paths: withAlias("/v1/creatives"), load: async () => (await import("./creatives")).registerCreativeRoutes },
  { paths: withAlias("/v1/ads"), load: async () => (await import("./ads")).registerAdRoutes },
  { paths: withAlias("/v1/status"), load: async () => (await import("./status/get")).registerGetAdStatus },
  { paths: withAlias("/v1/templates"), load: async () => (await import("./templates")).registerTemplateRoutes },
  { paths: withAlias("/v1/audiences"), load: async () => (await import("./audiences")).registerAudienceRoutes },
  { paths: withAlias("/v1/targeting"), load: async () => (await import("./targeting")).registerTargetingRoutes },
  { paths: withAlias("/v1/webhooks"), load: async () => (await import("./webhooks")).registerWebhookRoutes },
  { paths: withAlias("/v1/insights"), load: async () => (await import("./insights")).registerInsightsRoutes },
  { paths: withAlias("/v1/plan", "/v1/account"), load: async () => (await import("./plan")).registerPlanRoutes },
];
