/**
 * The mail service as other parts see it: its deps factory and workers, the crons' jobs, the webhook receiver, and the setup, render, search and schema pieces the operator API serves.
 * A file outside lib/mail imports the service from here (or its HTTP app, `app.ts`; the seed and the simulator
 * are the runtime's other entries); layers.json makes a deeper import fail `npm run lint`.
 */
export { cleanUpAssets } from "./assets/cleanup";
export { defaultFrame } from "./blocks/library";
export { BlockFields, BlockParamFields, TagFields } from "./blocks/schema";
export { createMailDeps, type MailDeps } from "./deps";
export { pruneMessageHistory } from "./events/prune";
export { POSTMARK_WEBHOOK_MAX_BODY_BYTES, POSTMARK_WEBHOOK_PATH, createPostmarkWebhookRoutes } from "./events/receiver";
export { ROTATION_GRACE_SECONDS } from "./events/receiver-credentials";
export { unconfiguredStreamEvents } from "./events/unconfigured-streams";
export { postmarkWebhookSetup, rotatePostmarkWebhook } from "./events/webhook-setup";
export { Message, MessageSearchQuery } from "./messages/schema";
export { getMessageDetail, searchMessagesByQuery } from "./messages/search";
export { messageColumns, withJob } from "./messages/service";
export { MAX_BUCKETS, STAT_GRANULARITIES, mailStats } from "./messages/stats";
export { RenderError } from "./preview/schema";
export { frameFor, renderForCustomer } from "./render/customer";
export { urlProblem } from "./render/escape";
export type { CompileResult } from "./render";
export { personaliseSubject } from "./render/subject";
export { renderTile, type RenderedTile } from "./render/tile";
export { defaultDesignTokens, designTokensSchema, type DesignTokenName } from "./render/tokens";
export { GUARD_BOUNDS } from "./send-jobs/guard";
export { IN_FLIGHT_LIMIT_MS, STALL_MS, recoverAfterRestart, recoverSendJobs } from "./send-jobs/recovery";
export { reputationFigures, resumeGuardedJob, setGuardThresholds } from "./send-jobs/reputation";
export { ListQuery, SendJob, SendJobDetail } from "./send-jobs/schema";
export { getSendJobDetail, listSendJobs } from "./send-jobs/service";
export { parseRecipient, recipientHash } from "./sending/address";
export { getMessageContent } from "./messages/content";
export { defaultJobName } from "./send-jobs/model";
export { createBlock, deactivateBlock, getBlock, listAllBlocks, listEnabledBlocks, setBlockEnabled, updateBlock, type BlockRow } from "./setup/blocks";
export { getDesignRules, setDesignRules } from "./setup/design";
export { getFrame, setFrame, type FrameRecord } from "./setup/frame";
export { getProviderConfig, readiness, setProviderConfig } from "./setup/provider-config";
export { MailProviderConfig, MailReadiness, MailSender, UpdateMailProviderConfig } from "./setup/provider-config-schema";
export { checkAllSenders, checkSenders, senderChecksView } from "./setup/sender-checks";
export { SenderChecks } from "./setup/sender-checks-schema";
export { listSuppressions, suppressionsCsv } from "./suppressions/list";
export { lookupSuppressions } from "./suppressions/mirror";
export { reactivateSuppression } from "./suppressions/reactivate";
export { LookupRequest, LookupResult, ReactivateRequest, ReactivateResult, SuppressionEntry } from "./suppressions/schema";
export { BlockReferenceFields, ContractEntryFields, CreateTemplateFields, TemplateFields, Values } from "./templates/schema";
export { createTemplate, getTemplateRow, listTemplates, toTemplateView, updateTemplate } from "./templates/service";
export { reportDailyUsage } from "./usage/billing";
export { Usage } from "./usage/schema";
export { getUsage } from "./usage/service";
export { MAIL_WEBHOOKS } from "./webhooks/emit";
export { DeliveryListQuery, Webhook, WebhookDelivery } from "./webhooks/schema";
export { registerMailWorkers } from "./workers";
