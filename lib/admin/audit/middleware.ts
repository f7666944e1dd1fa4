import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { clientAddress } from "../../core/client-address";
import type { AppEnv, CoreDeps } from "../../core/context";
import { type AdminOperation, matchOperation } from "../access";
import { ADMIN_ACTOR_ENV } from "../authenticate";
import { describeChange, recordAuditEntry } from "./record";

/** Set on the `env` of the audit middleware's own read of the state before a change (not audited itself). */
const AUDIT_READ_ENV = "auditRead";

/**
 * The one place admin requests are audited (after authentication, before the role check, so a refused
 * write is recorded too): every write operation (`x-operation-kind: write`), whatever its answer, every secret
 * read (`secret-read`: the secret's name in `target.secret`), and every request made with the break-glass
 * token. A refused one carries its reason (`details.reason` of the answer). One entry per request: actor, operationId, target (the path's
 * ids, plus the new id of a create), customer, request id, status, and for writes the change — the request
 * body and, for PUT/PATCH of a resource the API can read at the same path, what differed before and after,
 * secrets redacted to "changed". An entry that cannot be written is logged as an error; the answer stands.
 */
export function auditRequests(deps: CoreDeps, app: OpenAPIHono<AppEnv>, operations: () => AdminOperation[]): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const env = c.env as Record<string, unknown> | undefined;
    const match = env?.[AUDIT_READ_ENV] ? null : matchOperation(operations(), c.req.method, c.req.path);
    const actor = c.get("operator");
    if (!match || !actor || (match.operation.kind === "read" && actor.type !== "break_glass")) return next();
    const { operation, params } = match;
    const write = operation.kind === "write";
    const request = write ? await requestBody(c) : undefined;
    const readable = write && (c.req.method === "PATCH" || c.req.method === "PUT") && hasRead(operations(), c.req.path);
    const before = readable ? await readState(app, c) : undefined;
    let failed = true;
    try {
      await next();
      failed = false;
    } finally {
      const status = failed ? 500 : c.res.status;
      const data = write && status < 300 ? await responseData(c.res) : undefined;
      const target = Object.fromEntries(operation.targets.map((name, i) => [name, params[i] ?? ""]));
      if (operation.secret) target.secret = operation.secret;
      const created = c.req.method === "POST" && !operation.path.endsWith("}") && typeof data?.id === "string" ? data.id : undefined;
      if (created) target[lastResource(operation.path)] = created;
      const customerId = target.customer ?? (typeof data?.customer_id === "string" ? data.customer_id : null);
      await recordAuditEntry(deps.db, {
        at: deps.clock.now(),
        actor,
        operationId: operation.operationId,
        method: c.req.method,
        path: c.req.path,
        status,
        customerId: customerId && UUID.test(customerId) ? customerId : null,
        target,
        requestId: c.get("requestId"),
        change: write ? describeChange(request, before, status < 300 ? data : undefined) : null,
        address: clientAddress(c),
        reason: status === 401 || status === 403 || status === 429 ? await refusalReason(c.res) : null,
      }).catch((error: unknown) => deps.logger.error("audit entry not written", { operation: operation.operationId, error: String(error) }));
    }
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function lastResource(path: string): string {
  const last = path.split("/").filter(Boolean).at(-1) ?? "id";
  const names: Record<string, string> = { customers: "customer", keys: "key", operators: "operator", tokens: "token" };
  return names[last] ?? last.replace(/-/g, "_").replace(/s$/, "");
}

function hasRead(operations: AdminOperation[], path: string): boolean {
  return matchOperation(operations, "GET", path) !== null;
}

async function requestBody(c: Context): Promise<unknown> {
  if (!(c.req.header("content-type") ?? "").includes("json")) return undefined;
  try {
    return JSON.parse(await c.req.text());
  } catch {
    return undefined;
  }
}

/** The `details.reason` of a refusal's envelope (`role_required`, `reauthentication_required`), else `forbidden` and the like. */
async function refusalReason(response: Response): Promise<string> {
  try {
    const body = (await response.clone().json()) as { error?: { code?: string; details?: { reason?: unknown } } };
    const reason = body.error?.details?.reason;
    return typeof reason === "string" ? reason : (body.error?.code ?? "refused");
  } catch {
    return "refused";
  }
}

async function responseData(response: Response): Promise<Record<string, unknown> | undefined> {
  if (!(response.headers.get("content-type") ?? "").includes("json")) return undefined;
  try {
    const body = (await response.clone().json()) as { data?: unknown };
    return body.data && typeof body.data === "object" ? (body.data as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The resource as the API shows it now (a GET of the same path, as the same actor); undefined when not readable. */
async function readState(app: OpenAPIHono<AppEnv>, c: Context<AppEnv>): Promise<unknown> {
  const url = new URL(c.req.url);
  const env = { ...(c.env as Record<string, unknown> | undefined), [ADMIN_ACTOR_ENV]: c.get("operator"), [AUDIT_READ_ENV]: true };
  const answer = await app.request(`${url.pathname}`, { method: "GET", headers: { accept: "application/json" } }, env);
  return answer.ok ? responseData(answer) : undefined;
}
