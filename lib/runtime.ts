import { OpenAPIHono } from "@hono/zod-openapi";
import { createAdminApp } from "./admin/app";
import { createAdsApp } from "./ads/app";
import { createAdsDeps, type AdsDeps } from "./ads/deps";
import { registerAdsWorkers } from "./ads/workers";
import type { AppEnv, CoreDeps } from "./core/context";
import { rootLlmsText } from "./core/docs";
import type { Providers } from "./providers";
import { closeAfterAnswer } from "./core/body-limit";
import { errorBody, noEndpointError } from "./core/errors";
import { createInternalApp } from "./core/internal-app";
import { createQueueRoutes, QUEUE_MAX_BODY_BYTES, QUEUE_PATH } from "./core/queue-routes";
import type { CronDeps } from "./cron";
import { createCronRoutes } from "./cron/routes";
import { createMailApp } from "./mail/app";
import { createMailDeps, type MailDeps } from "./mail/deps";
import { registerMailWorkers } from "./mail/workers";
import { createPostmarkWebhookRoutes, POSTMARK_WEBHOOK_MAX_BODY_BYTES, POSTMARK_WEBHOOK_PATH } from "./mail/events/receiver";
import { registerSimulatorServers } from "./mail/seed";
import { createPlatformWebhookRoutes, PLATFORM_WEBHOOK_MAX_BODY_BYTES, PLATFORM_WEBHOOK_PATH } from "./ads/webhooks/platform-receiver";
import { createAssetStorage } from "./blob-storage";
import { createPublicFilesRoutes, FILES_PATH } from "./core/public-files";
import { createConsoleApp } from "./console/app";

export type RuntimeDeps = CoreDeps & { adminToken: string; providers: Providers };

/**
 * The whole HTTP surface of one deployment: `/mail/v1`, `/ads/v1`, `/admin/v1` and `/api/*`
 * (provider webhooks, queue workers, crons). `npm start`, the Vercel entries and the tests all
 * build it here, so they serve the same routes.
 */
export function createRootApp(deps: RuntimeDeps) {
  const { assets, mailDeps, adsDeps, cronDeps } = createServices(deps);
  const mail = createMailApp(mailDeps);
  const ads = createAdsApp(adsDeps);
  const admin = createAdminApp({
    ...deps,
    ads: adsDeps,
    mail: mailDeps,
    // Embedded mode: the in-memory Postmark simulator learns a customer's server and webhook at once.
    mailProviderChanged: async (customerId) => void (await registerSimulatorServers(deps, customerId)),
  });
  const root = new OpenAPIHono<AppEnv>();
  // Each service app strips its own prefix (see `pathWithout`) and answers its own 404/405.
  root.get("/llms.txt", (c) => c.text(rootLlmsText()));
  root.all("/mail/*", (c) => mail.fetch(c.req.raw, c.env));
  root.all("/ads/*", (c) => ads.fetch(c.req.raw, c.env));
  root.all("/admin/*", (c) => admin.fetch(c.req.raw, c.env));
  const operatorConsole = createConsoleApp({ ...deps, admin });
  root.all("/console/*", (c) => operatorConsole.fetch(c.req.raw, c.env));
  const api = createInternalApp(deps.logger, [
    { prefix: `${POSTMARK_WEBHOOK_PATH}/`, maxBytes: POSTMARK_WEBHOOK_MAX_BODY_BYTES },
    { prefix: PLATFORM_WEBHOOK_PATH, maxBytes: PLATFORM_WEBHOOK_MAX_BODY_BYTES },
    { prefix: QUEUE_PATH, maxBytes: QUEUE_MAX_BODY_BYTES },
  ]);
  root.all("/api/*", (c) => api.fetch(c.req.raw, c.env));
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
  // Embedded mode: published images are served by the app itself (production: Vercel Blob's CDN).
  if (assets.local) root.route(FILES_PATH, createPublicFilesRoutes(assets.local));
  root.notFound((c) => {
    const requestId = crypto.randomUUID();
    c.header("X-Request-Id", requestId);
    // Nothing here reads a body: one still coming ends with the connection (see `closeAfterAnswer`).
    if (c.req.header("content-length") !== undefined || c.req.header("transfer-encoding") !== undefined) closeAfterAnswer(c);
    return c.json(errorBody(noEndpointError(c.req.method, c.req.path), "mail", requestId), 404);
  });
  return { root, mail, ads, admin, mailDeps, adsDeps, cronDeps };
}

/**
 * Each service's deps, built once per runtime, and the queue workers registered here: the queue's handlers
 * belong to the process that owns the queue, not to an app. The one blob store of the process (Vercel Blob
 * or DATA_DIR/blobs) is chosen from config here and shared by both services.
 */
function createServices(deps: RuntimeDeps): { assets: ReturnType<typeof createAssetStorage>; mailDeps: MailDeps; adsDeps: AdsDeps; cronDeps: CronDeps } {
  const assets = createAssetStorage(deps);
  const mailDeps = createMailDeps({ ...deps, assets });
  const adsDeps = createAdsDeps({ ...deps, blobs: assets.blobs });
  registerMailWorkers(mailDeps);
  registerAdsWorkers(adsDeps);
  return { assets, mailDeps, adsDeps, cronDeps: { ...deps, mail: mailDeps, ads: adsDeps } };
}
