import { createRoute, type OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { clientAddress } from "../core/client-address";
import type { AppEnv, CoreDeps } from "../core/context";
import { ForbiddenError } from "../core/errors";
import { errorResponses } from "../core/openapi";
import type { OperatorRole } from "./operators/accounts";
import { recentAuthSentence, requireRecentAuth } from "./reauthentication";

/**
 * Who may call which admin operation, declared as data on each route (`adminRoute(role, route)`) and
 * enforced by one middleware (`enforceRoles`) that reads the same declarations from the route registry, so
 * the document (`x-required-role`, `x-operation-kind` and a sentence in the description) and the check
 * cannot disagree. Roles are ordered support < admin < owner:
 * - `owner`: everything, including operator management;
 * - `admin`: everything but operator management;
 * - `support`: reads, plus the writes a route opens to support explicitly (`supportMayWrite`).
 * A write declared for `support` without `supportMayWrite` is refused at start-up, so no write becomes
 * open to support by accident; a route without a declaration makes `createAdminApp` throw.
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
};

const ROLE_SENTENCE: Record<OperatorRole, string> = {
  owner: "Required role: `owner` (operator management).",
  admin: "Required role: `admin` or `owner`; a `support` operator gets 403 `forbidden`.",
  support: "Required role: any operator (`support`, `admin` or `owner`).",
};

/** Every admin route takes an operator credential (checked once in `createAdminApp`). */
const security = [{ adminToken: [] }];

export function adminRoute<const R extends RouteConfig>(role: OperatorRole, route: R, options: AccessOptions = {}) {
  const kind: OperationKind = options.revealsSecret ? "secret-read" : route.method === "get" || options.reads ? "read" : "write";
  if (role === "support" && kind === "write" && !options.supportMayWrite) {
    throw new Error(`${route.operationId}: a write open to support must say supportMayWrite`);
  }
  if (role === "support" && kind === "secret-read") throw new Error(`${route.operationId}: a secret's value is never open to support`);
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
  return createRoute({ ...route, security, description, responses, ...extensions } as R);
}

/** One admin operation as the role check and the audit log see it. */
export type AdminOperation = {
  operationId: string;
  method: string;
  /** `/v1/customers/{id}/keys` */
  path: string;
  role: OperatorRole;
  kind: OperationKind;
  /** Needs a recent sign-in or re-authentication (console sessions). */
  recentAuth: boolean;
  /** The secret a `secret-read` operation answers (named in its audit entry's target). */
  secret: string | null;
  /** Path parameters in order, each named by the segment before it (`customers/{id}` → `customer`). */
  targets: string[];
  pattern: RegExp;
  literalSegments: number;
};

type RegisteredRoute = RouteConfig & {
  "x-required-role"?: OperatorRole;
  "x-operation-kind"?: OperationKind;
  "x-recent-authentication"?: boolean;
  "x-reveals-secret"?: string;
};

const SINGULAR: Record<string, string> = { customers: "customer", keys: "key", operators: "operator", tokens: "token", sessions: "session" };

function singular(segment: string): string {
  return SINGULAR[segment] ?? segment.replace(/-/g, "_").replace(/ies$/, "y").replace(/s$/, "");
}

/** The admin operations of an app, from its route registry (call after every route is registered). */
export function adminOperations(app: OpenAPIHono<AppEnv>): AdminOperation[] {
  const operations: AdminOperation[] = [];
  for (const definition of app.openAPIRegistry.definitions) {
    if (definition.type !== "route") continue;
    const route = definition.route as RegisteredRoute;
    const role = route["x-required-role"];
    const kind = route["x-operation-kind"];
    if (!role || !kind) throw new Error(`admin route ${route.method.toUpperCase()} ${route.path} declares no role (use adminRoute)`);
    const segments = route.path.split("/").filter(Boolean);
    const targets: string[] = [];
    const source = segments
      .map((segment, i) => {
        if (!/^\{.+\}$/.test(segment)) return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        targets.push(singular(segments[i - 1] ?? "id"));
        return "([^/]+)";
      })
      .join("/");
    operations.push({
      operationId: route.operationId ?? `${route.method} ${route.path}`,
      method: route.method.toUpperCase(),
      path: route.path,
      role,
      kind,
      recentAuth: route["x-recent-authentication"] === true,
      secret: route["x-reveals-secret"] ?? null,
      targets,
      pattern: new RegExp(`^/${source}/?$`),
      literalSegments: segments.length - targets.length,
    });
  }
  return operations;
}

/** The operation a request is for (the most literal path wins: `/v1/ads/templates/preview` over `/v1/ads/templates/{id}`). */
export function matchOperation(operations: AdminOperation[], method: string, path: string): { operation: AdminOperation; params: string[] } | null {
  let best: { operation: AdminOperation; params: string[] } | null = null;
  for (const operation of operations) {
    if (operation.method !== method) continue;
    const found = operation.pattern.exec(path);
    if (!found) continue;
    if (!best || operation.literalSegments > best.operation.literalSegments) {
      best = { operation, params: found.slice(1).map((p) => decodeURIComponent(p)) };
    }
  }
  return best;
}

function roleAllows(actual: OperatorRole, required: OperatorRole): boolean {
  return RANK[actual] >= RANK[required];
}

/**
 * The one role check of the admin API (after authentication and the audit middleware, before idempotency and
 * the handler), and the re-authentication check of operations declared `recentAuth`. A refused read is
 * recorded as a refusal here; a refused write or secret read already has its entry from the audit middleware.
 */
export function enforceRoles(deps: Pick<CoreDeps, "clock" | "config" | "refusals">, operations: () => AdminOperation[]): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const match = matchOperation(operations(), c.req.method, c.req.path);
    // No operation here: the app's 404/405 answers.
    if (!match) return next();
    const actor = c.get("operator");
    try {
      if (!roleAllows(actor.role, match.operation.role)) {
        throw new ForbiddenError(`This operation needs the ${match.operation.role} role; you are signed in as ${actor.role}.`, {
          reason: "role_required",
          required_role: match.operation.role,
          role: actor.role,
        });
      }
      if (match.operation.recentAuth) requireRecentAuth(deps, actor, match.operation.operationId);
    } catch (error) {
      if (match.operation.kind === "read" && error instanceof ForbiddenError) {
        const reason = (error.details as { reason?: string } | undefined)?.reason ?? "forbidden";
        await deps.refusals.record({
          operationId: match.operation.operationId,
          method: c.req.method,
          path: c.req.path,
          status: 403,
          reason,
          tokenPrefix: null,
          address: clientAddress(c),
          actor,
          target: Object.fromEntries(match.operation.targets.map((name, i) => [name, match.params[i] ?? ""])),
          requestId: c.get("requestId"),
        });
      }
      throw error;
    }
    await next();
  };
}
