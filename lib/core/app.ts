import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context, ErrorHandler, MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ZodError } from "zod";
import type { RateLimitDecision, RateLimitPolicy } from "../adapters/ratelimit";
import type { PriorityGate } from "../db/priority";
import { authenticateApiKey } from "./api-keys";
import { BODYLESS_METHODS, limitRequestBody, MAX_JSON_BODY_BYTES, refuseAnnouncedBody } from "./body-limit";
import { tooManyAuthFailures } from "./auth-throttle";
import { clientAddress } from "./client-address";
import { databaseUnavailableError, isDatabaseUnavailable } from "./database-unavailable";
import type { AppEnv, CoreDeps } from "./context";
import { ApiError, BadRequestError, echoedPath, errorBody, noEndpointError, statusOf, type FieldProblem, type ServiceName, type Surface } from "./errors";
import type { Logger } from "../base/logger";
import { inputHygiene } from "./input-hygiene";
import { traceRequest } from "./request-span";
import { unreadableRequest } from "./strict-text";
import { declared, ROUTE_DECLARATION } from "./route-declaration";
import type { LazyRoutes } from "./route-groups";

const API_VERSION = "v1";
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export type ServiceAppOptions = {
  service: ServiceName;
  /** Where the app is mounted (`/mail`); the prefix is stripped when routing, so routes read `/v1/...`. */
  mountPath?: string;
  deps: CoreDeps;
  /** The app's route groups, registered at their first request (`lazyRouteGroups`); their loader runs before every other middleware. */
  routeGroups?: LazyRoutes;
};

/**
 * Routing path without the mount prefix. Mounting by path rewriting (`app.mount`) would clone every
 * request; reading the path off the URL is cheap.
 */
function pathWithout(prefix: string): (request: Request) => string {
  return (request) => {
    const url = request.url;
    const start = url.indexOf("/", url.indexOf("://") + 3);
    const end = url.indexOf("?", start);
    const path = start === -1 ? "/" : end === -1 ? url.slice(start) : url.slice(start, end);
    return prefix && path.startsWith(`${prefix}/`) ? path.slice(prefix.length) : path;
  };
}

/** Zod issues → field problems; a missing required field is a 400 per both specs, anything else a 422. */
export function validationFailure(error: ZodError, input: unknown, target: string): ApiError {
  const problems: FieldProblem[] = error.issues.map((issue) => ({
    path: issue.path.map(String).join(".") || target,
    message: issue.message,
  }));
  // A missing enum field is reported as `invalid_value` by zod 4, a missing string as `invalid_type`.
  const missing = error.issues.filter((issue) => (issue.code === "invalid_type" || issue.code === "invalid_value") && valueAt(input, issue.path) === undefined);
  if (missing.length === error.issues.length) {
    return new BadRequestError(
      `Missing required ${missing.length === 1 ? "field" : "fields"}: ${missing.map((m) => m.path.join(".") || target).join(", ")}.`,
      problems,
    );
  }
  return new ApiError("validation_error", "The request has invalid fields; see details.", { details: problems });
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

export function respondError(c: Context<AppEnv>, error: ApiError): Response {
  const service = c.get("service");
  const status = statusOf(error.code, service);
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
  return c.json(errorBody(error, service, c.get("requestId") ?? crypto.randomUUID()), status as 400);
}

/**
 * The shared skeleton of both services (and the admin API): request id, version pinning, body checks,
 * authentication, rate limiting, one error handler and the 404/405 answers. Route-level concerns
 * (scope, access switch, idempotency) come from `serviceRoute` in `./route`.
 */
export function createServiceApp(options: ServiceAppOptions): OpenAPIHono<AppEnv> {
  const { service, deps } = options;

  const app = new OpenAPIHono<AppEnv>({
    getPath: pathWithout(options.mountPath ?? ""),
    defaultHook: (result) => {
      // zod-validator hands the raw input over as `data`; it tells a missing field from an invalid one.
      if (!result.success) throw validationFailure(result.error as ZodError, (result as { data?: unknown }).data, result.target);
    },
  });

  // A request for a route group not loaded yet loads it, then goes through this whole chain once with it in place.
  if (options.routeGroups) app.use("*", options.routeGroups.loader);
  app.use("*", identifyRequest(service, options.mountPath));
  app.use("*", checkRequest(deps.priority));
  if (service !== "admin") {
    app.use("*", authenticate(service, deps));
  }
  app.use("*", inputHygiene());

  app.notFound((c) => {
    const allowed = service === "ads" ? allowedMethods(app, c.req.path) : [];
    if (allowed.length > 0) {
      return respondError(
        c,
        new ApiError("method_not_allowed", `Method ${c.req.method} is not allowed on ${echoedPath(c.req.path)}.`, {
          headers: { Allow: allowed.join(", ") },
        }),
      );
    }
    return respondError(c, noEndpointError(c.req.method, c.req.path));
  });

  app.onError(handleError(deps.logger));

  return app;
}

const JSON_CONTENT_TYPE = /^application\/([\w.-]+\+)?json\s*(;|$)/i;

/**
 * What every request is checked for before authentication, in one middleware: its target and the headers
 * read are text (`requireTextualRequest`), `Service-Version` is ours, and its body is within the route's limit
 * (`limitRequestBody`: before anything reads it) and JSON. The route's declaration (found once here and kept
 * as `c.var.route`) says whether the body is raw (the route streams and caps it itself; any content type) and
 * whether a POST is a priority request. A `GET`, `HEAD` or `OPTIONS` request takes no body: only its headers
 * are looked at (one announced is 413).
 */
function checkRequest(priority: PriorityGate): MiddlewareHandler<AppEnv> {
  const limit = limitRequestBody((c) => (c.get("route")?.rawBody ? "streamed" : { maxBytes: MAX_JSON_BODY_BYTES }));
  const bodyChecks: MiddlewareHandler<AppEnv> = (c, next) => limit(c, () => requireJsonBody(c, next));
  return async (c, next) => {
    const route = declared(c, ROUTE_DECLARATION);
    c.set("route", route);
    const problem = unreadableRequest(c);
    if (problem) throw problem;
    const pinned = c.req.header("service-version");
    if (pinned !== undefined && pinned.trim().toLowerCase() !== API_VERSION) {
      throw new BadRequestError(`Unknown Service-Version "${pinned.slice(0, 32)}"; this API serves "${API_VERSION}".`);
    }
    const method = c.req.method;
    if (BODYLESS_METHODS.has(method)) {
      refuseAnnouncedBody(c);
      return next();
    }
    if (route?.priority && method === "POST") return priority.asPriorityRequest(() => bodyChecks(c, next));
    return bodyChecks(c, next);
  };
}

/** A POST, PUT or PATCH with a body says it is JSON, unless its route takes a raw body. */
async function requireJsonBody(c: Context<AppEnv>, next: () => Promise<void>): Promise<void> {
  const method = c.req.method;
  if ((method === "POST" || method === "PUT" || method === "PATCH") && !c.get("route")?.rawBody) {
    const length = c.req.header("content-length");
    const type = c.req.header("content-type") ?? "";
    if (!JSON_CONTENT_TYPE.test(type)) {
      // Over HTTP a body comes with Content-Length or Transfer-Encoding, but the Node adapter gives every
      // POST a body stream (`curl -X POST` without data included), as do in-process requests: without
      // either header, only a non-empty body counts (Hono caches what it read for later readers).
      const hasBody =
        length !== undefined
          ? length !== "0"
          : c.req.header("transfer-encoding") !== undefined || (c.req.raw.body !== null && (await c.req.arrayBuffer()).byteLength > 0);
      if (hasBody) throw new BadRequestError(`Content-Type must be application/json (got "${type.slice(0, 64) || "none"}").`);
    }
  }
  await next();
}

/**
 * The request id (a valid incoming `X-Request-Id` is kept, else a new UUID), the surface whose
 * envelope errors take and the request's span; every answer says `X-Content-Type-Options: nosniff` (a JSON
 * error is never read as a page), and the `/v1` APIs also answer `Service-Version`.
 */
export function identifyRequest(surface: Surface, mountPath = ""): MiddlewareHandler<AppEnv> {
  const versioned = surface !== "internal";
  return async (c, next) => {
    const incoming = c.req.header("x-request-id");
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
    c.set("requestId", requestId);
    c.set("service", surface);
    // Headers set before the response exists keep @hono/node-server on its fast path; changing
    // `c.res.headers` afterwards would materialise a full Response for every request.
    c.header("X-Request-Id", requestId);
    c.header("X-Content-Type-Options", "nosniff");
    if (versioned) c.header("Service-Version", API_VERSION);
    await traceRequest(c, surface, mountPath, requestId, next);
    if (!c.res.headers.has("x-request-id")) {
      c.res.headers.set("X-Request-Id", requestId);
      c.res.headers.set("X-Content-Type-Options", "nosniff");
      if (versioned) c.res.headers.set("Service-Version", API_VERSION);
    }
  };
}

/**
 * The one error handler: `ApiError`s in the envelope, Hono's own 4xx as 400, anything else an opaque,
 * logged 500 (`opaqueMessage` tells a machine caller what happens next, e.g. that the provider retries).
 */
export function handleError(logger: Logger, opaqueMessage = "Internal error; retry with backoff and quote the request_id."): ErrorHandler<AppEnv> {
  return (error, c) => {
    if (error instanceof ApiError) return respondError(c, error);
    if (error instanceof HTTPException && error.status < 500) {
      // Hono's own 4xx (malformed JSON in a validator, etc.): keep the message, use our envelope.
      const message = error.status === 415 ? "Content-Type must be application/json." : error.message || "Bad request.";
      return respondError(c, new BadRequestError(message));
    }
    if (isDatabaseUnavailable(error)) {
      logger.warn("database unavailable", { request_id: c.get("requestId"), path: c.req.path, error: error instanceof Error ? error.message : String(error) });
      return respondError(c, databaseUnavailableError());
    }
    logger.error("unhandled error", {
      request_id: c.get("requestId"),
      path: c.req.path,
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      stack: error instanceof Error ? error.stack : undefined,
    });
    return respondError(c, new ApiError("internal_error", opaqueMessage));
  };
}

function authenticate(service: "mail" | "ads", deps: CoreDeps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.get("route")?.public) return next();
    const address = clientAddress(c) ?? "unknown";
    const blocked = deps.authThrottle.retryAfter(address);
    if (blocked > 0) throw tooManyAuthFailures(blocked, deps.config.AUTH_FAILURES_PER_MINUTE);
    const header = c.req.header("authorization") ?? "";
    const match = /^Bearer\s+(\S{1,200})$/i.exec(header);
    const principal = match?.[1] ? await authenticateApiKey(deps.db, match[1], service, deps.principals) : null;
    if (!principal) {
      const wait = await deps.authThrottle.failed(address);
      if (wait > 0) throw tooManyAuthFailures(wait, deps.config.AUTH_FAILURES_PER_MINUTE);
      throw new ApiError("unauthorized", "API key missing, invalid or revoked. Send Authorization: Bearer <key>.", {
        headers: { "WWW-Authenticate": 'Bearer realm="api"' },
      });
    }
    c.set("principal", principal);

    const decision = await deps.rateLimiter.limit(`${service}:${principal.customerId}`);
    const headers = decision ? rateLimitHeaders(decision, deps.rateLimiter.policy) : {};
    if (decision && !decision.allowed) {
      const { limit, windowSeconds } = deps.rateLimiter.policy;
      throw new ApiError("rate_limited", `Rate limit of ${limit} requests per ${windowSeconds} s reached; retry after ${decision.resetSeconds} s.`, {
        headers: { ...headers, "Retry-After": String(decision.resetSeconds) },
      });
    }
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
    await next();
    if (decision && !c.res.headers.has("x-ratelimit-limit")) {
      // A handler that built its own Response (an idempotent replay, a file) did not get the prepared headers.
      for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
    }
  };
}

/** The legacy `X-RateLimit-*` trio plus the IETF `RateLimit-Policy` / `RateLimit` pair. */
function rateLimitHeaders(decision: RateLimitDecision, policy: RateLimitPolicy): Record<string, string> {
  return {
    "X-RateLimit-Limit": String(decision.limit),
    "X-RateLimit-Remaining": String(decision.remaining),
    "X-RateLimit-Reset": String(decision.resetSeconds),
    "RateLimit-Policy": `"per-customer";q=${policy.limit};w=${policy.windowSeconds}`,
    RateLimit: `"per-customer";r=${decision.remaining};t=${decision.resetSeconds}`,
  };
}

/** Methods registered for a concrete path, for the 405 `Allow` header. */
function allowedMethods(app: OpenAPIHono<AppEnv>, path: string): string[] {
  const methods = new Set<string>();
  for (const route of app.routes) {
    if (route.method === "ALL") continue;
    const pattern = new RegExp(
      `^${route.path
        .replace(/[.+?^${}()|[\]\\]/g, "\\$&")
        .replace(/\/:[^/]+/g, "/[^/]+")
        .replace(/\*/g, ".*")}$`,
    );
    if (pattern.test(path)) methods.add(route.method);
  }
  if (methods.has("GET")) methods.add("HEAD");
  return [...methods].sort();
}
