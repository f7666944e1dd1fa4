/**
 * The ads service as other parts see it: its deps factory and workers, the crons' jobs, the platform webhook receiver, and the onboarding, plan, review, target and template pieces the operator API serves.
 * A file outside lib/ads imports the service from here (or its HTTP app, `app.ts`; the seed and the simulator
 * are the runtime's other entries); layers.json makes a deeper import fail `npm run lint`.
 */
export { sweepCompensations } from "./compensations";
export { createAdsDeps, type AdsDeps } from "./deps";
export { MAX_DAYS, adSetDailyInsights } from "./insights/daily";
export { queryInsights } from "./insights/query";
export { InsightRow, InsightsQuery } from "./insights/schema";
export { fanOutSnapshots } from "./insights/snapshots";
export { AD_NAME_TOKENS, AD_SET_NAME_TOKENS, AdsNaming, getNaming, patternProblems, setNaming } from "./naming";
export { AdsOnboarding, UpdateAdsOnboarding } from "./onboarding/schema";
export { getOnboarding, sealPlainAccountFields, updateOnboarding } from "./onboarding/service";
export { PlanUsage } from "./plan/schema";
export { getPlanUsage, selectedStageSql, setSelectedStage } from "./plan/service";
export { listAdSetsForReview, listAdsForReview } from "./review/list";
export { AdReviewQuery, AdSetReviewQuery, AdminAd, AdminAdSet } from "./review/schema";
export { AdminTarget, CreateAdminTarget, UpdateAdminTarget } from "./targets/schema";
export { createTarget, findTargetByKey, listTargets, toTargetView, updateTarget } from "./targets/service";
export { TemplatePreview } from "./templates/customer-schema";
export { SALE_BANNER } from "./templates/demo";
export { TemplateDraft, previewTemplateDraft } from "./templates/draft-preview";
export { AdminAdTemplate, Assignment, LAYOUT_RULES, templateId } from "./templates/schema";
export {
  TemplateInput,
  assignAdTemplate,
  createAdTemplate,
  getAdTemplate,
  getTemplatePreview,
  listAdTemplates,
  listAssignments,
  setPreviewValues,
  unassignAdTemplate,
  updateAdTemplate,
} from "./templates/service";
export { resumeVideoRenders } from "./templates/video-render";
export { ADS_WEBHOOKS } from "./webhooks/events";
export { PLATFORM_WEBHOOK_MAX_BODY_BYTES, PLATFORM_WEBHOOK_PATH, createPlatformWebhookRoutes } from "./webhooks/platform-receiver";
export { pollAdStatuses } from "./webhooks/poll";
export { AdsDeliveryListQuery, AdsWebhookDelivery } from "./webhooks/schema";
export { registerAdsWorkers } from "./workers";
