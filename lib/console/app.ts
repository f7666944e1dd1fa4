import { Hono, type Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { CoreDeps } from "../core/context";
import { ApiError, errorBody, statusOf } from "../core/errors";
import { limitRequestBody, MAX_JSON_BODY_BYTES } from "../core/body-limit";
import { clientAddress } from "../core/client-address";
import { decodeUtf8, requireTextualRequest, undecodableParameter } from "../core/strict-text";
import { safeEqual } from "../core/secrets";
import type { OperatorActor } from "../core/principal";
import { asOperator } from "../admin/authenticate";
import { type AuditEntryInput, recordAuditEntry } from "../admin/audit/record";
import { createBootstrapGate, type OperatorView, verifyOperatorPassword } from "../admin/operators/accounts";
import { secondFactorStatus } from "../admin/operators/second-factor";
import { compressJsonAnswers, sendCompressed } from "../core/compressed";
import { assetVersions, consoleScriptBody, consoleStyle, FAVICON, IMMUTABLE, versionOf } from "./assets";
import { shellPage, signInPage } from "./pages";
import { signInFailed, signInSucceeded, signInWait } from "../admin/operators/sign-in-throttle";
import type { Refusal } from "../core/refusal-audit";
import { verifyReauthentication } from "./reauthenticate";
import { createSignInSteps, type SignInMethod } from "./sign-in-steps";
import {
  csrfTokenMatches,
  endSession,
  openSession,
  reauthenticated,
  readSession,
  sessionCookie,
  sessionKeys,
  sessionPolicy,
  type ConsoleSession,
} from "./session";

const CONSOLE_PATH = "/console";

export type ConsoleDeps = Pick<CoreDeps, "db" | "clock" | "authThrottle" | "refusals" | "logger" | "config" | "secrets" | "publicBaseUrl"> & {
  adminToken: string;
  /** The admin API's fetch; the console's `/console/api/*` is that API behind the session. */
  admin: { fetch(request: Request, env?: unknown): Response | Promise<Response> };
};

type ConsoleEnv = { Variables: { session: ConsoleSession } };

/** Pages are ours alone: no framing, no outside host, inline styles only inside preview frames (MJML output). */
const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'";

const UNSAFE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
/** The sign-in and sign-out forms carry a token or a CSRF value: a few hundred bytes. */
export const CONSOLE_FORM_MAX_BODY_BYTES = 16 * 1024;

/**
 * The operator console at `/console`: a sign-in page, one page shell and a browser script that works over
 * the admin API. Operators sign in with e-mail and password; the shared `ADMIN_TOKEN` opens a session only
 * while it is the bootstrap credential (no owner yet) or break-glass is on. The browser never holds a
 * credential: `/console/api/<path>` calls `/admin/v1/<path>` in-process with the session's operator as the
 * caller (its current role; `asOperator`), so roles and the audit log apply as to API tokens. Writes need
 * the session's CSRF token in `X-CSRF-Token` (the page carries it) and, when the browser sends `Origin`, our own
 * origin; the cookie is `SameSite=Strict` besides. Sign-ins, re-authentications and sign-outs are audited, and
 * so is every refusal (a failed or throttled sign-in, a CSRF or cross-origin write), counted per minute.
 * Password sign-ins back off per account and address (`sign-in-throttle.ts`); the shared token's sign-in
 * counts in the per-address throttle as API credentials do.
 */
export function createConsoleApp(deps: ConsoleDeps): Hono<ConsoleEnv> {
  const keys = sessionKeys(deps.adminToken);
  const policy = sessionPolicy(deps.config);
  const app = new Hono<ConsoleEnv>().basePath(CONSOLE_PATH);

  app.use("*", async (c, next) => {
    await next();
    c.header("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Referrer-Policy", "same-origin");
    if (!c.res.headers.has("Cache-Control")) c.header("Cache-Control", "no-store");
  });
  // Before the session, the sign-in form or the admin API read the path, the query or a header.
  app.use("*", requireTextualRequest());
  // Bodies are limited before the session or the token is looked at: the forms are tiny, the API carries
  // the admin API's JSON (the same limit as there).
  app.use(
    "*",
    limitRequestBody((c) => ({ maxBytes: c.req.path.startsWith(`${CONSOLE_PATH}/api/`) ? MAX_JSON_BODY_BYTES : CONSOLE_FORM_MAX_BODY_BYTES })),
  );
  // The API's JSON goes out compressed as the script does (the admin app answers it uncompressed in-process).
  app.use("/api/*", compressJsonAnswers());
  app.onError((error, c) => {
    if (error instanceof ApiError) return apiError(c, error);
    deps.logger.error("console error", { path: c.req.path.slice(0, 200), error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
    return apiError(c, new ApiError("internal_error", "Internal error; reload the page."));
  });

  const secure = (c: Context) => new URL(c.req.url).protocol === "https:";
  const cookieOf = (c: Context) => sessionCookie(secure(c));
  const currentSession = (c: Context) => readSession(deps.db, deps.clock, keys, getCookie(c, cookieOf(c).name), policy);
  const sameOrigin = (c: Context) => {
    const origin = c.req.header("origin");
    return origin === undefined || origin === new URL(c.req.url).origin;
  };

  /** Why a write through the session is refused: another origin, or a missing or wrong CSRF token; null when it may go on. */
  const csrfRefusal = (c: Context, session: ConsoleSession): { reason: "cross_origin" | "csrf_token"; message: string } | null =>
    !sameOrigin(c)
      ? { reason: "cross_origin", message: "Cross-site request refused: Origin is not this console." }
      : !csrfTokenMatches(session, c.req.header("x-csrf-token"))
        ? { reason: "csrf_token", message: "CSRF token missing or wrong. Reload the console page." }
        : null;

  const gate = createBootstrapGate(deps.db);
  /** The shared token's role now: bootstrap until the first owner exists, then break-glass or nothing. */
  const sharedTokenActor = async (sessionId: string | null): Promise<OperatorActor | null> => {
    const type = !(await gate.retired()) ? "bootstrap" : deps.config.ADMIN_TOKEN_BREAK_GLASS ? "break_glass" : null;
    return type ? { type, role: "owner", operatorId: null, tokenId: null, sessionId } : null;
  };
  /** The admin API's caller for a session: its operator (current role), or the shared token's role; null when it no longer opens anything. */
  const actorOf = async (session: ConsoleSession): Promise<OperatorActor | null> =>
    session.operator
      ? {
          type: "operator",
          role: session.operator.role,
          operatorId: session.operator.id,
          tokenId: null,
          sessionId: session.id,
          authenticatedAt: session.authenticatedAt,
        }
      : sharedTokenActor(session.id).then((actor) => actor && { ...actor, authenticatedAt: session.authenticatedAt });
  const passwordSignIn = async (email: string, password: string): Promise<{ actor: OperatorActor; operator?: OperatorView } | { error: string }> => {
    if (!email || !password) return { error: "Enter your e-mail and password." };
    const operator = await verifyOperatorPassword(deps.db, email, password);
    if (!operator) return { error: "E-mail or password wrong, or the account is disabled." };
    return { actor: { type: "operator", role: operator.role, operatorId: operator.id, tokenId: null, sessionId: null }, operator };
  };
  const tokenSignIn = async (token: string): Promise<{ actor: OperatorActor; operator?: OperatorView } | { error: string }> => {
    if (!token) return { error: "Enter the operator token." };
    if (!safeEqual(token, deps.adminToken)) return { error: "This is not the operator token. A customer's API key does not open the console." };
    const actor = await sharedTokenActor(null);
    return actor
      ? { actor }
      : { error: "The shared operator token was retired when the first owner account was created: sign in with your e-mail and password." };
  };
  const refused = (c: Context, refusal: Pick<Refusal, "operationId" | "status" | "reason" | "actor"> & { target?: Record<string, string> }) =>
    deps.refusals.record({ ...refusal, method: c.req.method, path: c.req.path, tokenPrefix: null, address: clientAddress(c), requestId: crypto.randomUUID() });
  const anonymous = { type: "anonymous", operatorId: null, tokenId: null } as const;
  const audit = (c: Context, operationId: string, status: number, actor: AuditEntryInput["actor"], target: Record<string, string>) =>
    recordAuditEntry(deps.db, {
      at: deps.clock.now(),
      actor,
      operationId,
      method: c.req.method,
      path: c.req.path,
      status,
      customerId: null,
      target,
      requestId: crypto.randomUUID(),
      change: null,
      address: clientAddress(c),
    }).catch((error: unknown) => deps.logger.error("audit entry not written", { operation: operationId, error: String(error) }));

  const steps = createSignInSteps(deps, {
    keys,
    secure,
    sameOrigin,
    audit,
    refused: (c, refusal) => refused(c, { ...refusal, actor: anonymous }),
    openSession: (c, actor, method, page) => startSession(c, actor, method, false, page),
    tooMany,
  });
  steps.register(app);

  // The script and the style sheet go out compressed (br or gzip) with an ETag, as the docs bundle: the page asks
  // for them under a versioned URL (`?v=` a hash of the bytes), cached for a year; any other URL briefly.
  const cacheFor = (c: Context, version: string) => (c.req.query("v") === version ? IMMUTABLE : "public, max-age=300");
  app.get("/console.css", (c) => sendCompressed(c, consoleStyle(), "text/css; charset=utf-8", cacheFor(c, versionOf(consoleStyle()))));
  app.get("/app.js", async (c) => {
    const script = await consoleScriptBody();
    return sendCompressed(c, script, "text/javascript; charset=utf-8", cacheFor(c, versionOf(script)));
  });
  app.get("/favicon.svg", (c) => sendCompressed(c, FAVICON, "image/svg+xml", "public, max-age=86400"));

  app.get("/sign-in", async (c) => {
    if (await currentSession(c)) return c.redirect(`${CONSOLE_PATH}/`, 303);
    const notice =
      c.req.query("signed_out") !== undefined ? "You are signed out." : c.req.query("expired") !== undefined ? "Your session ended. Sign in again." : null;
    return c.html(signInPage({ notice, sso: steps.ssoName }));
  });

  app.post("/sign-in", async (c) => {
    if (!sameOrigin(c)) {
      await refused(c, { operationId: "signIn", status: 403, reason: "cross_origin", actor: anonymous });
      return c.html(signInPage({ error: "Sign-in must come from this console's own page.", sso: steps.ssoName }), 403);
    }
    const address = clientAddress(c) ?? "unknown";
    if (!(await formIsText(c)))
      return c.html(signInPage({ error: "The form did not arrive as UTF-8 text; sign in from this console's own page.", sso: steps.ssoName }), 400);
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const text = (name: string) => (typeof form[name] === "string" ? (form[name] as string) : "");
    const byPassword = "email" in form || "password" in form;
    const email = text("email").trim().toLowerCase().slice(0, 254);
    const target: Record<string, string> = byPassword && email ? { email } : {};
    // Passwords wait per account and address; the shared token per address (it opens nothing once retired).
    const blocked = byPassword ? (email ? await signInWait(deps.db, deps.clock, { email, address }) : 0) : deps.authThrottle.retryAfter(address);
    if (blocked > 0) {
      await refused(c, { operationId: "signIn", status: 429, reason: byPassword ? "sign_in_backoff" : "auth_throttled", actor: anonymous, target });
      return tooMany(c, blocked);
    }
    const outcome = byPassword ? await passwordSignIn(email, text("password")) : await tokenSignIn(text("token").trim());
    if ("error" in outcome) {
      const wait = byPassword ? (email ? await signInFailed(deps.db, deps.clock, { email, address }) : 0) : await deps.authThrottle.failed(address);
      await refused(c, { operationId: "signInFailed", status: 401, reason: byPassword ? "wrong_password" : "wrong_token", actor: anonymous, target });
      deps.logger.info("console sign-in refused", { address });
      if (wait > 0) c.header("Retry-After", String(wait));
      return c.html(signInPage({ error: outcome.error, field: byPassword ? "password" : "token", email, sso: steps.ssoName }), 401);
    }
    if (byPassword) await signInSucceeded(deps.db, { email, address });
    if (outcome.actor.type === "operator" && outcome.operator) {
      // The password matched: the sign-in policy and the operator's second factor decide what comes next.
      const next = await steps.afterPassword(c, outcome.operator);
      if (next instanceof Response) return next;
      if ("refused" in next) {
        await deps.authThrottle.failed(address);
        await refused(c, {
          operationId: "signInFailed",
          status: 403,
          reason: "password_sign_in_off",
          actor: anonymous,
          target: { ...target, method: "password", reason: "password_sign_in_off" },
        });
        return c.html(signInPage({ error: next.refused, field: "password", email, sso: steps.ssoName }), 403);
      }
      return startSession(c, outcome.actor, next.method, next.breakGlass);
    }
    return startSession(c, outcome.actor, "token");
  });

  /**
   * Opens a session for an actor who passed every sign-in step (password, second factor or single sign-on):
   * a fresh authentication (`authenticated_at` now), the session policy's lifetimes, the cookie, the audit
   * entry (with the method), then the console or `page`.
   */
  async function startSession(c: Context, actor: OperatorActor, method: SignInMethod, breakGlass = false, page?: () => Response | Promise<Response>) {
    const { cookieValue, session } = await openSession(
      deps.db,
      deps.clock,
      keys,
      { operatorId: actor.operatorId, userAgent: c.req.header("user-agent") ?? null, address: clientAddress(c) ?? "unknown" },
      policy,
    );
    const cookie = cookieOf(c);
    setCookie(c, cookie.name, cookieValue, {
      path: cookie.path,
      httpOnly: true,
      sameSite: "Strict",
      secure: secure(c),
      expires: session.expiresAt,
    });
    await audit(c, "signIn", 200, actor, { session: session.id, method, ...(breakGlass ? { break_glass: "true" } : {}) });
    deps.logger.info("console session opened", { session: session.id });
    return page ? page() : c.redirect(`${CONSOLE_PATH}/`, 303);
  }

  /**
   * Re-authentication before a sensitive action: the session's operator enters the password again (a session
   * of the shared token: the token), which moves the session's `authenticated_at` to now. JSON in, JSON out;
   * the CSRF token and our origin as for every write; wrong passwords count in the same back-off as sign-ins.
   */
  app.post("/reauthenticate", async (c) => {
    const session = await currentSession(c);
    const actor = session ? await actorOf(session) : null;
    if (!session || !actor) return apiError(c, new ApiError("unauthorized", "No console session, or it ended. Sign in again."));
    const csrf = csrfRefusal(c, session);
    if (csrf) {
      await refused(c, { operationId: "reauthenticate", status: 403, reason: csrf.reason, actor });
      return apiError(c, new ApiError("forbidden", csrf.message, { details: { reason: csrf.reason } }));
    }
    const body = (await c.req.json().catch(() => ({}))) as Record<string, unknown>;
    const address = clientAddress(c) ?? "unknown";
    const attempt = { email: session.operator ? `session-operator:${session.operator.id}` : "shared-token", address };
    const blocked = await signInWait(deps.db, deps.clock, attempt);
    if (blocked > 0) {
      await refused(c, { operationId: "reauthenticate", status: 429, reason: "sign_in_backoff", actor });
      return apiError(
        c,
        new ApiError("rate_limited", `Too many wrong passwords; try again in ${blocked} seconds.`, { headers: { "Retry-After": String(blocked) } }),
      );
    }
    const verdict = await verifyReauthentication(deps, session, body);
    if (verdict !== true) {
      await signInFailed(deps.db, deps.clock, attempt);
      await refused(c, { operationId: "reauthenticate", status: 422, reason: verdict.reason, actor });
      // 422, not 401: the session stays valid and the console must not treat the answer as "signed out".
      return apiError(c, new ApiError("validation_error", verdict.message, { details: [{ path: verdict.field, message: verdict.message }] }));
    }
    await signInSucceeded(deps.db, attempt);
    const at = await reauthenticated(deps.db, deps.clock, session.id);
    await audit(c, "reauthenticate", 200, actor, { session: session.id });
    return c.json({ data: { authenticated_at: at.toISOString() } }, 200);
  });

  app.post("/sign-out", async (c) => {
    const session = await currentSession(c);
    if (session) {
      const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
      const csrf = !sameOrigin(c) ? "cross_origin" : !csrfTokenMatches(session, typeof form.csrf === "string" ? form.csrf : undefined) ? "csrf_token" : null;
      if (csrf) {
        const actor = await actorOf(session);
        await refused(c, { operationId: "signOut", status: 403, reason: csrf, actor: actor ?? anonymous });
        return c.html(signInPage({ error: "Sign-out must come from this console's own page." }), 403);
      }
      await endSession(deps.db, session.id);
      const actor = await actorOf(session);
      if (actor) await audit(c, "signOut", 200, actor, { session: session.id });
      deps.logger.info("console session ended", { session: session.id });
    }
    const cookie = cookieOf(c);
    deleteCookie(c, cookie.name, { path: cookie.path, secure: secure(c) });
    return c.redirect(`${CONSOLE_PATH}/sign-in?signed_out`, 303);
  });

  // The API behind the session: JSON answers (the admin API's envelope), never a redirect.
  app.all("/api/*", async (c) => {
    const session = await currentSession(c);
    const actor = session ? await actorOf(session) : null;
    if (!session || !actor) return apiError(c, new ApiError("unauthorized", "No console session, or it ended. Sign in again."));
    const csrf = UNSAFE_METHODS.has(c.req.method) ? csrfRefusal(c, session) : null;
    if (csrf) {
      await refused(c, { operationId: "consoleApi", status: 403, reason: csrf.reason, actor });
      return apiError(c, new ApiError("forbidden", csrf.message, { details: { reason: csrf.reason } }));
    }
    const url = new URL(c.req.url);
    const target = new URL(`/admin/v1/${url.pathname.slice(`${CONSOLE_PATH}/api/`.length)}${url.search}`, url.origin);
    const headers = new Headers();
    for (const name of ["content-type", "accept", "x-request-id", "if-none-match", "idempotency-key"]) {
      const value = c.req.header(name);
      if (value !== undefined) headers.set(name, value);
    }
    const body = UNSAFE_METHODS.has(c.req.method) ? await c.req.arrayBuffer() : undefined;
    // The admin app takes the session's operator as its caller (in-process only: see `asOperator`).
    const answer = await deps.admin.fetch(new Request(target, { method: c.req.method, headers, body }), asOperator(c.env, actor));
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  });

  // Every other path under /console is the page shell; the script routes by the URL's hash.
  app.get("*", async (c) => {
    const session = await currentSession(c);
    const actor = session ? await actorOf(session) : null;
    if (!session || !actor) return c.redirect(`${CONSOLE_PATH}/sign-in${getCookie(c, cookieOf(c).name) ? "?expired" : ""}`, 303);
    const sessionKind = !session.operator ? "token" : (await secondFactorStatus(deps.db, session.operator.id)).totp ? "password+code" : "password";
    return c.html(shellPage({ csrfToken: session.csrfToken, role: actor.role, sessionKind, assets: await assetVersions() }));
  });

  return app;
}

/** Whether a form body is UTF-8 throughout, its percent-escapes included: what is not is refused, never read with U+FFFD in it. */
async function formIsText(c: Context): Promise<boolean> {
  const decoded = decodeUtf8(new Uint8Array(await c.req.arrayBuffer()));
  if (!("text" in decoded)) return false;
  return !/urlencoded/i.test(c.req.header("content-type") ?? "") || undecodableParameter(decoded.text) === null;
}

function apiError(c: Context, error: ApiError): Response {
  const requestId = crypto.randomUUID();
  c.header("X-Request-Id", requestId);
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
  return c.json(errorBody(error, "admin", requestId), statusOf(error.code, "admin") as 401 | 403);
}

function tooMany(c: Context, seconds: number): Response | Promise<Response> {
  c.header("Retry-After", String(seconds));
  return c.html(signInPage({ error: `Too many failed sign-ins from this address. Try again in ${seconds} seconds.` }), 429);
}
