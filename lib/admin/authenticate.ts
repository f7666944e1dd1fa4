import type { Context, MiddlewareHandler } from "hono";
import { tooManyAuthFailures } from "../core/auth-throttle";
import { clientAddress } from "../core/client-address";
import type { AppEnv, OperatorActor } from "../core/context";
import { ApiError } from "../core/errors";
import { tokenPrefix } from "../core/refusal-audit";
import { safeEqual } from "../core/secrets";
import type { AdminDeps } from "./deps";
import type { createBootstrapGate } from "./operators/accounts";
import { authenticateOperatorToken, OPERATOR_TOKEN_PREFIX, whyTokenRefused } from "./operators/tokens";

/*
 * An in-process caller hands the admin app an actor it has authenticated itself (the console: a session
 * cookie it checked; the admin CLI booted in-process) in the `env` of its dispatch, under a symbol only this
 * module holds: `env` is set by code in this process only (the Node adapter's socket, the Vercel entry),
 * never by a request, and no other code can name the key.
 */
const HANDED_ACTOR: unique symbol = Symbol("operator handed in-process");
/** Marks the audit middleware's own read of the state before a change (not audited itself). */
const AUDIT_READ: unique symbol = Symbol("audit read");

type InProcessEnv = { [HANDED_ACTOR]?: OperatorActor; [AUDIT_READ]?: true };

/** `env` for dispatching a request to the admin app as `actor` (the app's authentication takes it as the caller). */
export function asOperator(env: unknown, actor: OperatorActor): InProcessEnv {
  return { ...(env as object | undefined), [HANDED_ACTOR]: actor };
}

/** `env` for the audit middleware's read of a resource before a change, as the same caller. */
export function auditReadEnv(env: unknown, actor: OperatorActor): InProcessEnv {
  return { ...asOperator(env, actor), [AUDIT_READ]: true };
}

export function isAuditRead(c: Context): boolean {
  return (c.env as InProcessEnv | undefined)?.[AUDIT_READ] === true;
}

function inProcessActor(c: Context): OperatorActor | undefined {
  return (c.env as InProcessEnv | undefined)?.[HANDED_ACTOR];
}

const RETIRED =
  "The shared operator token (ADMIN_TOKEN) was retired when the first owner account was created. Use your own API token (op_live_…) or sign in to the console; in an emergency the server's operator can set ADMIN_TOKEN_BREAK_GLASS=true (every use is audited).";

/**
 * Who calls the admin API: an operator's API token (`op_live_…`), the admin CLI's per-start token, or the
 * shared `ADMIN_TOKEN` — as `bootstrap` (owner) until the first owner account exists, then only as
 * `break_glass` (owner, every request audited) while `ADMIN_TOKEN_BREAK_GLASS=true`, and otherwise 401 with
 * that said. Failures count in the per-address throttle shared with the customer APIs.
 *
 * A valid operator token or CLI token is accepted even from an address the throttle blocks: both are 24+
 * random bytes that no amount of guessing finds, so telling a right one apart gives a guesser nothing, and an
 * attacker failing from an operator's address (an office NAT) cannot lock that operator out. The shared
 * `ADMIN_TOKEN` may be chosen by a person, so from a blocked address it is not even compared.
 * Every refusal of a presented credential (401) and every 429 is recorded in the audit log with its reason and
 * the credential's visible prefix (`RefusalAudit`, counted per minute); a request with no credential is not.
 */
export function authenticateOperator(deps: AdminDeps, gate: ReturnType<typeof createBootstrapGate>): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.get("route")?.public) return next();
    const handed = inProcessActor(c);
    if (handed) {
      c.set("operator", handed);
      return next();
    }
    const address = clientAddress(c) ?? "unknown";
    const bearer = /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "")?.[1];
    const refused = (status: 401 | 429, reason: string) =>
      deps.refusals.record({
        operationId: "authenticate",
        method: c.req.method,
        path: c.req.path,
        status,
        reason,
        tokenPrefix: bearer ? tokenPrefix(bearer) : null,
        address: clientAddress(c),
        actor: { type: "anonymous", operatorId: null, tokenId: null },
        requestId: c.get("requestId"),
      });
    const unguessable = bearer !== undefined && (bearer.startsWith(OPERATOR_TOKEN_PREFIX) || (deps.cliToken !== undefined && safeEqual(bearer, deps.cliToken)));
    const blocked = deps.authThrottle.retryAfter(address);
    const actor =
      bearer && (blocked === 0 || unguessable) ? await actorOf(deps, gate, bearer) : { refused: bearer ? ("throttled" as const) : ("missing" as const) };
    if ("refused" in actor) {
      const wait = blocked > 0 ? blocked : await deps.authThrottle.failed(address);
      if (wait > 0) {
        await refused(429, "auth_throttled");
        throw tooManyAuthFailures(wait, deps.config.AUTH_FAILURES_PER_MINUTE);
      }
      if (bearer)
        await refused(
          401,
          actor.refused === "wrong" && bearer.startsWith(OPERATOR_TOKEN_PREFIX)
            ? await whyTokenRefused(deps.db, bearer)
            : actor.refused === "retired"
              ? "retired_admin_token"
              : "unknown_token",
        );
      throw new ApiError(
        "unauthorized",
        actor.refused === "retired" ? RETIRED : "Operator credential missing or wrong. Send Authorization: Bearer <your operator API token>.",
      );
    }
    c.set("operator", actor);
    await next();
  };
}

const nobody = { operatorId: null, tokenId: null, sessionId: null };

async function actorOf(
  deps: AdminDeps,
  gate: ReturnType<typeof createBootstrapGate>,
  bearer: string,
): Promise<OperatorActor | { refused: "wrong" | "retired" }> {
  if (bearer.startsWith(OPERATOR_TOKEN_PREFIX)) {
    const token = await authenticateOperatorToken(deps.db, deps.clock, bearer);
    return token ? { type: "token", role: token.role, operatorId: token.operatorId, tokenId: token.tokenId, sessionId: null } : { refused: "wrong" };
  }
  if (deps.cliToken && safeEqual(bearer, deps.cliToken)) return { type: "cli", role: "owner", ...nobody };
  if (!safeEqual(bearer, deps.adminToken)) return { refused: "wrong" };
  if (!(await gate.retired())) return { type: "bootstrap", role: "owner", ...nobody };
  if (deps.config.ADMIN_TOKEN_BREAK_GLASS) return { type: "break_glass", role: "owner", ...nobody };
  return { refused: "retired" };
}
