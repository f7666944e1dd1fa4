import { Hono } from "hono";
import { handleError, identifyRequest, respondError } from "./app";
import type { AppEnv } from "./context";
import { ApiError } from "./errors";
import type { Logger } from "./logger";

/**
 * The app under `/api/*` (provider webhooks, queue workers, crons): no API keys and no OpenAPI document,
 * but the same request id, error envelope and error handler as the three APIs, so a refused webhook or a
 * failed worker answers `{ error, request_id }` with the status its code stands for.
 */
export function createInternalApp(logger: Logger): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", identifyRequest("internal"));
  app.notFound((c) => respondError(c, new ApiError("not_found", `No endpoint ${c.req.method} ${c.req.path.slice(0, 200)}.`)));
  app.onError(handleError(logger));
  return app;
}
