import type { AdsDeps } from "./ads";
import { registerAdsWorkers } from "./ads";
import { createPlatformWebhookRoutes, PLATFORM_WEBHOOK_MAX_BODY_BYTES, PLATFORM_WEBHOOK_PATH } from "./ads";
import { createInternalApp } from "./core/internal-app";
import { createQueueRoutes, QUEUE_MAX_BODY_BYTES, QUEUE_PATH } from "./core/queue-routes";
import type { CronDeps } from "./cron";
import { createCronRoutes } from "./cron/routes";
import type { MailDeps } from "./mail";
import { createPostmarkWebhookRoutes, POSTMARK_WEBHOOK_MAX_BODY_BYTES, POSTMARK_WEBHOOK_PATH } from "./mail";
import { registerMailWorkers } from "./mail";
import type { RuntimeDeps } from "./providers";

/**
 * `/api/*`: provider webhooks, the queue's worker route and the crons, with the queue workers of both
 * services registered here (the queue's handlers belong to the process that owns the queue, not to an
 * app). The root app mounts it; on Vercel it is the app of the internal functions (api/cron, api/postmark,
 * api/platform, api/queue, api/video), which serve no customer API.
 */
export function createInternalApi(deps: RuntimeDeps, services: { mailDeps: MailDeps; adsDeps: AdsDeps }) {
  const { mailDeps, adsDeps } = services;
  registerMailWorkers(mailDeps);
  registerAdsWorkers(adsDeps);
  const cronDeps: CronDeps = { ...deps, mail: mailDeps, ads: adsDeps };
  const api = createInternalApp(deps.logger, [
    { prefix: `${POSTMARK_WEBHOOK_PATH}/`, maxBytes: POSTMARK_WEBHOOK_MAX_BODY_BYTES },
    { prefix: PLATFORM_WEBHOOK_PATH, maxBytes: PLATFORM_WEBHOOK_MAX_BODY_BYTES },
    { prefix: QUEUE_PATH, maxBytes: QUEUE_MAX_BODY_BYTES },
  ]);
  api.route("/api/cron", createCronRoutes(cronDeps));
  api.route("/api/postmark", createPostmarkWebhookRoutes(deps));
  api.route("/api/platform", createPlatformWebhookRoutes(adsDeps));
  api.route(
    QUEUE_PATH,
    createQueueRoutes(deps.queue, {
      currentSigningKey: deps.config.QSTASH_CURRENT_SIGNING_KEY,
      nextSigningKey: deps.config.QSTASH_NEXT_SIGNING_KEY,
      publicBaseUrl: deps.publicBaseUrl,
      logger: deps.logger,
    }),
  );
  return { api, cronDeps };
}
