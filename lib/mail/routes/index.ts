import type { RouteGroup } from "../../core/route-groups";
import type { MailDeps } from "../deps";

/**
 * Every route group of the mail API, in the order of the OpenAPI document's paths; each is imported at the
 * first request under one of its paths (lib/core/route-groups.ts).
 */
export const mailRouteGroups: RouteGroup<MailDeps>[] = [
  { paths: ["/v1/blocks"], load: async () => (await import("./blocks")).registerBlockRoutes },
  { paths: ["/v1/design-rules"], load: async () => (await import("./design-rules")).registerDesignRuleRoutes },
  { paths: ["/v1/render"], load: async () => (await import("./preview")).registerPreviewRoutes },
  { paths: ["/v1/templates"], load: async () => (await import("./templates")).registerTemplateRoutes },
  { paths: ["/v1/messages"], load: async () => (await import("./messages")).registerMessageRoutes },
  { paths: ["/v1/assets", "/v1/uploads"], load: async () => (await import("./assets")).registerAssetRoutes },
  { paths: ["/v1/suppressions"], load: async () => (await import("./suppressions")).registerSuppressionRoutes },
  { paths: ["/v1/webhooks"], load: async () => (await import("./webhooks")).registerWebhookRoutes },
  { paths: ["/v1/send-jobs"], load: async () => (await import("./send-jobs")).registerSendJobRoutes },
  { paths: ["/v1/usage"], load: async () => (await import("./usage")).registerUsageRoutes },
];
