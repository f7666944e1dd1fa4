import { createInternalApi } from "../internal-api";
import { serviceDepsOf } from "../services";
import { functionHandler } from "../vercel";

/**
 * api/cron, api/postmark, api/platform, api/queue and api/video (`/api/*`): webhooks, the queue's worker
 * route and the crons with every worker registered; none of the customer or operator apps.
 */
export const handler = functionHandler(
  "api",
  (deps) => {
    return createInternalApi(deps, serviceDepsOf(deps)).api;
  },
  (app) => app,
);
