import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { clientAddress } from "../../core/client-address";
import type { AppEnv, CoreDeps } from "../../core/context";
import { declared } from "../../core/route-declaration";
import { ADMIN_OPERATION, targetOf } from "../access";
import { auditReadEnv, isAuditRead } from "../authenticate";
import { describeChange, recordAuditEntry } from "./record";

/**
 * The one place admin requests are audited (after authentication, around the route's role check, so a refused
 * write is recorded too): every write operation (`x-operation-kind: write`), whatever its answer, every secret
 * read (`secret-read`: the secret's name in `target.secret`), and every request made with the break-glass
 * token. The operation is the answering route's declaration (`adminRoute`: its operationId, kind and target
 * names). A refused one carries its reason (`details.reason` of the answer). One entry per request: actor,
 * operationId, target (the path's ids, plus the new id of a create), customer, request id, status, and for
 * writes the change — the request body and, for PUT/PATCH of a resource the API can read at the same path,
 * what differed before and after, secrets redacted to "changed". An entry that cannot be written is logged as
 * an error; the answer stands.
 */
export function auditRequests(deps: CoreDeps, app: OpenAPIHono<AppEnv>): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const operation = isAuditRead(c) ? undefined : declared(c, ADMIN_OPERATION);
    const actor = c.get("operator");
    if (!operation || !actor || (operation.kind === "read" && actor.type !== "break_glass")) return next();
    const write = operation.kind === "write";
    const request = write ? await requestBody(c) : undefined;
    const readable = write && (c.req.method === "PATCH" || c.req.method === "PUT") && hasRead(app, operation.path);
    const before = readable ? await readState(app, c) : undefined;
    let failed = true;
    try {
      await next();
      failed = false;
    } finally {
      const status = failed ? 500 : c.res.status;
      const data = write && status < 300 ? await responseData(c.res) : undefined;
      const target = targetOf(operation, c.get("pathParams") ?? {});
      if (operation.secret) target.secret = operation.secret;
      const created = c.req.method === "POST" && operation.creates !== null && typeof data?.id === "string" ? data.id : undefined;
      if (operation.creates !== null && created) target[operation.creates] = created;
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

/** Whether a GET route serves the same path as an operation's (`/v1/customers/{id}` and `/v1/customers/:id` alike). */
function hasRead(app: OpenAPIHono<AppEnv>, path: string): boolean {
  const shape = (p: string) => p.replace(/\{[^}]+\}|:[^/]+/g, ":");
  const wanted = shape(path);
  return app.routes.some((route) => route.method === "GET" && shape(route.path) === wanted);
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
  const answer = await app.request(`${url.pathname}`, { method: "GET", headers: { accept: "application/json" } }, auditReadEnv(c.env, c.get("operator")));
  return answer.ok ? responseData(answer) : undefined;
}
