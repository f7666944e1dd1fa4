import { createInternalApi } from "../internal-api";
import { adsDepsOf, createAssets, mailDepsOf } from "../services";
import { functionHandler } from "../vercel";

/**
 * api/cron, api/postmark, api/platform, api/queue and api/video (`/api/*`): webhooks, the queue's worker
 * route and the crons with every worker registered; none of the customer or operator apps.
 */
export const handler = functionHandler(
  "api",
  (deps) => {
    const assets = createAssets(deps);
    return createInternalApi(deps, { mailDeps: mailDepsOf(deps, assets), adsDeps: adsDepsOf(deps, assets) }).api;
  },
  (app) => app,
);
