import { Hono } from "hono";
import { handleError, identifyRequest, respondError } from "./app";
import { limitRequestBody } from "./body-limit";
import type { AppEnv } from "./context";
import { noEndpointError } from "./errors";
import type { Logger } from "../base/logger";

/** The body limit of every internal path no entry of `bodyLimits` names (crons take none; unknown paths). */
export const INTERNAL_DEFAULT_MAX_BODY_BYTES = 64 * 1024;

/** A body limit per path prefix under `/api` (the first matching entry applies). */
export type InternalBodyLimits = { prefix: string; maxBytes: number }[];

/**
 * The app under `/api/*` (provider webhooks, queue workers, crons): no API keys and no OpenAPI document,
 * but the same request id, error envelope and error handler as the three APIs, so a refused webhook or a
 * failed worker answers `{ error, request_id }` with the status its code stands for. Every body is
 * limited before any route reads it, before signatures and credentials are checked (`bodyLimits`).
 */
export function createInternalApp(logger: Logger, bodyLimits: InternalBodyLimits = []): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", identifyRequest("internal"));
  app.use(
    "*",
    limitRequestBody((c) => ({ maxBytes: bodyLimits.find((limit) => c.req.path.startsWith(limit.prefix))?.maxBytes ?? INTERNAL_DEFAULT_MAX_BODY_BYTES })),
  );
  app.notFound((c) => respondError(c, noEndpointError(c.req.method, c.req.path)));
  app.onError(handleError(logger));
  return app;
}
