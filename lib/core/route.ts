import { createRoute, type RouteConfig } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import type { Access, AppEnv, CoreDeps, Principal } from "./context";
import { ApiError, ConflictError, ForbiddenError, PaymentRequiredError } from "./errors";
import { headerRef, parameterRef } from "./openapi";
import { sha256Hex } from "./secrets";
import { carrying, ROUTE_DECLARATION, routeDeclaration, type RouteOptions } from "./route-declaration";

/** The methods that change something: they take an `Idempotency-Key` (documented by ./docs.ts). */
export const WRITE_METHODS: ReadonlySet<string> = new Set(["post", "put", "patch"]);
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * Declares a customer-facing route. `access` decides the scope (`read` → reporting suffices; `write` and
 * `send` need `full`), the access switches (mail: sending blocked → 403 on `send`; ads: account state →
 * 402) and, for POST/PUT/PATCH, idempotency. The scope is also written into the OpenAPI security
 * requirement so the docs show it. `options` are what the app's middleware reads before the route's own
 * (a priority request; see `RouteOptions`).
 */
export function serviceRoute<const R extends RouteConfig>(deps: CoreDeps, access: Access | "account", route: R, options: RouteOptions = {}) {
  const scope = access === "read" || access === "account" ? "reporting" : "full";
  const write = WRITE_METHODS.has(route.method);
  // The access check carries the route's options for the app's middleware (lib/core/route-declaration.ts).
  const middleware: MiddlewareHandler<AppEnv>[] = [carrying(requireAccess(access), ROUTE_DECLARATION, routeDeclaration(options))];
  if (write) middleware.push(idempotency(deps));
  const config = { ...route, security: [{ bearerAuth: [scope] }], middleware: [...middleware, ...asArray(route.middleware)] };
  // The headers only change the document, not the handler's types.
  const parameters = write ? [...(route.parameters ?? []), parameterRef("IdempotencyKey")] : route.parameters;
  return createRoute({ ...config, parameters, responses: documentHeaders(route.responses, write) } as unknown as typeof config);
}

const RATE_LIMIT_HEADERS = ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "RateLimit-Policy", "RateLimit"] as const;

/**
 * The response headers this route's middleware adds, per status: the rate-limit headers on every answer
 * after authentication; on writes `Idempotent-Replayed` wherever a stored answer can be replayed (below
 * 500, not 429) and `Retry-After` on the 409 of a key still in use. (`X-Request-Id` and `Service-Version`
 * are on every response of every route: `buildDocument` adds them.)
 */
function documentHeaders(responses: RouteConfig["responses"], write: boolean): RouteConfig["responses"] {
  return Object.fromEntries(
    Object.entries(responses).map(([code, response]) => {
      if ("$ref" in response) return [code, response];
      const status = Number(code);
      const names: string[] = status === 401 ? [] : [...RATE_LIMIT_HEADERS];
      if (write && status < 500 && status !== 429) names.push("Idempotent-Replayed");
      if (write && status === 409) names.push("Retry-After");
      const headers = Object.fromEntries(names.map((name) => [name, headerRef(name)]));
      if (response.headers && !("_zod" in response.headers)) Object.assign(headers, response.headers);
      else if (response.headers) return [code, response];
      return [code, names.length > 0 ? { ...response, headers } : response];
    }),
  );
}

function asArray<T>(value: T | T[] | undefined): T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** The access rules of both specs in one place. */
function accessProblem(principal: Principal, access: Access | "account"): ApiError | null {
  if (access !== "read" && access !== "account" && principal.scope !== "full") {
    return new ForbiddenError("This API key has the reporting scope, which is read-only; use a full key.");
  }
  if (principal.service === "mail" && access === "send" && principal.mail?.sendingBlocked) {
    return new ForbiddenError("Sending is blocked for this account by an administrator; read endpoints stay available.");
  }
  if (principal.service === "ads" && principal.ads && principal.ads.accountState !== "active") {
    const state = principal.ads.accountState;
    const readable = state === "deactivated" || state === "overdue";
    if (access === "write" || access === "send" || (access === "read" && !readable)) {
      return new PaymentRequiredError(`No active write access: the account is ${state.replace("_", " ")}.`, { account_state: state });
    }
  }
  return null;
}

function requireAccess(access: Access | "account"): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const problem = accessProblem(c.get("principal"), access);
    if (problem) throw problem;
    await next();
  };
}

/**
 * The owner of the operator's idempotency keys: the nil UUID, which no customer id (a random v4 UUID) can
 * be, so the operator's keys and a customer's never meet although they share the store.
 */
const OPERATOR_IDEMPOTENCY_OWNER = "00000000-0000-0000-0000-000000000000";

/**
 * Idempotency on an operator write (POST/PUT/PATCH of the admin API), with the customer APIs' rules;
 * route middleware of each write but a secret read (`adminRoute`, after the role check), documented on
 * each write by `buildDocument` (`idempotentWrites`).
 */
export function operatorIdempotency(deps: Pick<CoreDeps, "idempotency" | "clock">): MiddlewareHandler<AppEnv> {
  const keyed = idempotency(deps, () => OPERATOR_IDEMPOTENCY_OWNER);
  return (c, next) => (WRITE_METHODS.has(c.req.method.toLowerCase()) ? keyed(c, next) : next());
}

/**
 * Idempotency per DESIGN §4: scoped to (customer, method + path, key); the first response is kept 24 h
 * and replayed with `Idempotent-Replayed: true`; another body under the same key is a 409; a key whose
 * first request is still running is a 409 with `Retry-After`. 5xx answers are not kept (a retry must be
 * able to redo the work) unless they carry a `message_id`: then the outcome is unknown and a retry must
 * not send again.
 */
function idempotency(
  deps: Pick<CoreDeps, "idempotency" | "clock">,
  owner: (c: Context<AppEnv>) => string = (c) => c.get("principal").customerId,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const raw = c.req.header("idempotency-key");
    if (raw === undefined) return next();
    const key = raw.trim().replace(/^"(.*)"$/, "$1");
    if (!IDEMPOTENCY_KEY.test(key)) {
      throw new ApiError("bad_request", "Idempotency-Key must be 1–255 visible ASCII characters (a UUID is recommended).");
    }
    const scope = { customerId: owner(c), route: `${c.req.method} ${c.req.path}`, key };
    const fingerprint = sha256Hex(`${c.req.method} ${c.req.path}\n${await c.req.text()}`);
    const claim = await deps.idempotency.claim(scope, fingerprint, deps.clock.now());

    if (claim.kind === "mismatch") {
      throw new ConflictError("This Idempotency-Key was already used with a different request body.", { reason: "idempotency_key_reused" });
    }
    if (claim.kind === "in_progress") {
      throw new ConflictError(
        "A request with this Idempotency-Key is still being processed; retry shortly.",
        { reason: "idempotency_key_in_use" },
        { "Retry-After": "1" },
      );
    }
    if (claim.kind === "replay") {
      const headers = new Headers(claim.response.headers);
      headers.set("Idempotent-Replayed", "true");
      return new Response(claim.response.body, { status: claim.response.status, headers });
    }

    try {
      await next();
    } catch (error) {
      await deps.idempotency.release(scope);
      throw error;
    }
    const body = await c.res.clone().text();
    const keep = c.res.status < 500 ? c.res.status !== 429 : /"message_id"\s*:/.test(body);
    if (!keep) {
      await deps.idempotency.release(scope);
      return;
    }
    const headers: Record<string, string> = {};
    c.res.headers.forEach((value, name) => {
      if (name === "content-type" || name === "location" || name === "etag") headers[name] = value;
    });
    await deps.idempotency.complete(scope, { status: c.res.status, headers, body }, deps.clock.now());
  };
}
