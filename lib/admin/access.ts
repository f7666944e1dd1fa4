import { createRoute, type OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { clientAddress } from "../core/client-address";
import type { AppEnv, CoreDeps } from "../core/context";
import { ForbiddenError } from "../core/errors";
import { errorResponses } from "../core/openapi";
import { carrying, declarationKey } from "../core/route-declaration";
import { operatorIdempotency, WRITE_METHODS } from "../core/route";
import type { OperatorRole } from "./operators/accounts";
import { recentAuthSentence, requireRecentAuth } from "./reauthentication";

/**
 * Who may call which admin operation, declared as data on each route (`adminRoute(deps, role, route)`) and
 * enforced by the route's own middleware built from the same declaration, so the document
 * (`x-required-role`, `x-operation-kind` and a sentence in the description) and the check cannot disagree. Roles are ordered support < admin < owner:
 * - `owner`: everything, including operator management;
 * - `admin`: everything but operator management;
 * - `support`: reads, plus the writes a route opens to support explicitly (`supportMayWrite`).
 * A write declared for `support` without `supportMayWrite` is refused at start-up, so no write becomes
 * open to support by accident; a route without a declaration makes the admin document throw (`requireDeclaredRoles`).
 */
const RANK: Record<OperatorRole, number> = { support: 0, admin: 1, owner: 2 };

/** `secret-read`: an operation that answers a secret's value, audited on every call with who and when. */
type OperationKind = "read" | "write" | "secret-read";

type AccessOptions = {
  /** A write that support operators may make (e.g. suppression reactivation, webhook redelivery). */
  supportMayWrite?: boolean;
  /** A POST that changes nothing (a preview, a lookup): a read for roles and the audit log. */
  reads?: boolean;
  /** Hands out the value of the named secret: audited on every call (`x-operation-kind: secret-read`), never open to support. */
  revealsSecret?: string;
  /** Needs a recent sign-in or re-authentication through the console (`requireRecentAuth`). */
  recentAuth?: boolean;
  /**
   * What an audit entry names as the operation's target: one name per path parameter, in order
   * (`/v1/customers/{id}/keys/{keyId}` → `["customer", "key"]`). Every write and secret read declares it, and
   * so does every route with path parameters (a refused read and a break-glass read are audited too).
   */
  target?: readonly string[];
  /** A POST that creates a resource: the name under which the new resource's `id` joins the target. */
  creates?: string;
};

const ROLE_SENTENCE: Record<OperatorRole, string> = {
  owner: "Required role: `owner` (operator management).",
  admin: "Required role: `admin` or `owner`; a `support` operator gets 403 `forbidden`.",
  support: "Required role: any operator (`support`, `admin` or `owner`).",
};

/** Every admin route takes an operator credential (checked once in `createAdminApp`). */
const security = [{ adminToken: [] }];

export function adminRoute<const R extends RouteConfig>(deps: RoleCheckDeps, role: OperatorRole, route: R, options: AccessOptions = {}) {
  const kind: OperationKind = options.revealsSecret ? "secret-read" : route.method === "get" || options.reads ? "read" : "write";
  if (role === "support" && kind === "write" && !options.supportMayWrite) {
    throw new Error(`${route.operationId}: a write open to support must say supportMayWrite`);
  }
  if (role === "support" && kind === "secret-read") throw new Error(`${route.operationId}: a secret's value is never open to support`);
  const operation = adminOperation(route, role, kind, options);
  const sentences = [
    route.description,
    ROLE_SENTENCE[role],
    kind === "secret-read" ? "Every call is recorded in the audit log as a secret read (who, when, which secret)." : undefined,
    options.recentAuth ? recentAuthSentence() : undefined,
  ];
  const description = sentences.filter(Boolean).join("\n\n");
  // A role below the required one answers 403: documented wherever a support operator can be refused.
  const responses = role === "support" || "403" in route.responses ? route.responses : { ...route.responses, ...errorResponses("admin", [403]) };
  const extensions = {
    "x-required-role": role,
    "x-operation-kind": kind,
    ...(options.recentAuth ? { "x-recent-authentication": true } : {}),
    ...(options.revealsSecret ? { "x-reveals-secret": options.revealsSecret } : {}),
  };
  // The role check carries the operation's declaration (the audit middleware reads it: lib/core/route-declaration.ts).
  // Every write takes `Idempotency-Key` with the customer APIs' rules (after the role check), except a secret
  // read: its answer would be kept in the idempotency store, a secret at rest outside the sealed column.
  const middleware: MiddlewareHandler<AppEnv>[] = [carrying(checkRole(deps, operation), ADMIN_OPERATION, operation)];
  if (kind !== "secret-read" && WRITE_METHODS.has(route.method)) middleware.push(operatorIdempotency(deps));
  const own = route.middleware === undefined ? [] : Array.isArray(route.middleware) ? route.middleware : [route.middleware];
  return createRoute({ ...route, security, description, responses, ...extensions, middleware: [...middleware, ...own] } as R);
}

/** What the role check needs: the refusal log, the clock and the settings of re-authentication, the idempotency store. */
type RoleCheckDeps = Pick<CoreDeps, "clock" | "config" | "refusals" | "idempotency">;

/** One admin operation as the role check and the audit log see it, declared by `adminRoute`. */
export type AdminOperation = {
  operationId: string;
  /** `/v1/customers/{id}/keys` */
  path: string;
  role: OperatorRole;
  kind: OperationKind;
  /** Needs a recent sign-in or re-authentication (console sessions). */
  recentAuth: boolean;
  /** The secret a `secret-read` operation answers (named in its audit entry's target). */
  secret: string | null;
  /** The path's parameters in order, each with the name the audit entry's target gives it (`id` → `customer`). */
  targets: readonly { param: string; name: string }[];
  /** The name under which a created resource's id joins the target (a create); null otherwise. */
  creates: string | null;
};

/** The declaration under which an admin route's role check carries its operation. */
export const ADMIN_OPERATION = declarationKey<AdminOperation>("admin operation");

function adminOperation(route: RouteConfig, role: OperatorRole, kind: OperationKind, options: AccessOptions): AdminOperation {
  const operationId = route.operationId;
  if (!operationId) throw new Error(`admin route ${route.method.toUpperCase()} ${route.path} has no operationId`);
  const params = [...route.path.matchAll(/\{([^}]+)\}/g)].map((found) => found[1] as string);
  if (options.target === undefined && (kind !== "read" || params.length > 0)) {
    throw new Error(`${operationId}: an audited operation declares its audit target (one name per path parameter)`);
  }
  const names = options.target ?? [];
  if (names.length !== params.length) throw new Error(`${operationId}: the audit target names ${names.length} parameters; the path has ${params.length}`);
  return {
    operationId,
    path: route.path,
    role,
    kind,
    recentAuth: options.recentAuth === true,
    secret: options.revealsSecret ?? null,
    targets: params.map((param, i) => ({ param, name: names[i] as string })),
    creates: options.creates ?? null,
  };
}

/** The audit target of a request for `operation`: each path parameter's value under its declared name. */
export function targetOf(operation: AdminOperation, params: Record<string, string>): Record<string, string> {
  const target: Record<string, string> = {};
  for (const { param, name } of operation.targets) target[name] = params[param] ?? "";
  return target;
}

/** Every admin route declares its role (`adminRoute`): checked over a router's routes whenever the document is made. */
export function requireDeclaredRoles(app: OpenAPIHono<AppEnv>): void {
  for (const definition of app.openAPIRegistry.definitions) {
    if (definition.type !== "route") continue;
    const route = definition.route as RouteConfig & { "x-required-role"?: OperatorRole };
    if (!route["x-required-role"]) throw new Error(`admin route ${route.method.toUpperCase()} ${route.path} declares no role (use adminRoute)`);
  }
}

function roleAllows(actual: OperatorRole, required: OperatorRole): boolean {
  return RANK[actual] >= RANK[required];
}

/**
 * The role check of one admin operation, and its re-authentication check when declared `recentAuth` (route
 * middleware: after authentication and the audit middleware, before idempotency and the handler). A refused
 * read is recorded as a refusal here; a refused write or secret read already has its entry from the audit
 * middleware. The path's parameters are kept for that entry's target (`c.var.pathParams`).
 */
function checkRole(deps: RoleCheckDeps, operation: AdminOperation): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const params = c.req.param() as Record<string, string>;
    c.set("pathParams", params);
    const actor = c.get("operator");
    try {
      if (!roleAllows(actor.role, operation.role)) {
        throw new ForbiddenError(`This operation needs the ${operation.role} role; you are signed in as ${actor.role}.`, {
          reason: "role_required",
          required_role: operation.role,
          role: actor.role,
        });
      }
      if (operation.recentAuth) requireRecentAuth(deps, actor, operation.operationId);
    } catch (error) {
      if (operation.kind === "read" && error instanceof ForbiddenError) {
        const reason = (error.details as { reason?: string } | undefined)?.reason ?? "forbidden";
        await deps.refusals.record({
          operationId: operation.operationId,
          method: c.req.method,
          path: c.req.path,
          status: 403,
          reason,
          tokenPrefix: null,
          address: clientAddress(c),
          actor,
          target: targetOf(operation, params),
          requestId: c.get("requestId"),
        });
      }
      throw error;
    }
    await next();
  };
}
