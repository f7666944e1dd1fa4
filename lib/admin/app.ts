import type { OpenAPIHono } from "@hono/zod-openapi";
import { createServiceApp } from "../core/app";
import { compressJsonAnswers } from "../core/compressed";
import type { AppEnv } from "../core/context";
import { registerDocs } from "../core/docs";
import { lazyRouteGroups } from "../core/route-groups";
import { requireDeclaredRoles } from "./access";
import { auditRequests } from "./audit/middleware";
import { authenticateOperator } from "./authenticate";
import { createBootstrapGate } from "./operators/accounts";
import { SIGN_IN_BACKOFF_SENTENCE } from "./operators/sign-in-throttle";
import type { AdminDeps } from "./deps";
import { adminRouteGroups } from "./routes";

/** The operator API: customers and their API keys, the mail side (block library, design, frame, provider, templates), the ads side (account, targets, naming, templates), operators and the audit log. */
export function createAdminApp(deps: AdminDeps): OpenAPIHono<AppEnv> {
  const routes = lazyRouteGroups(deps, adminRouteGroups);
  const app = createServiceApp({ service: "admin", mountPath: "/admin", deps, routeGroups: routes });
  // Every route declares its role (`adminRoute`, whose middleware checks it): checked again whenever route groups
  // were loaded (the loader runs before this), so no route is ever served without its role check.
  let seen = -1;
  app.use("/v1/*", (_c, next) => {
    if (seen !== app.routes.length) {
      requireDeclaredRoles(app);
      seen = app.routes.length;
    }
    return next();
  });
  // Outermost of the admin middlewares but the route check: refusals are compressed like answers.
  app.use("/v1/*", compressJsonAnswers());
  app.use("/v1/*", authenticateOperator(deps, createBootstrapGate(deps.db)));
  // Around the route's own middleware (role check, idempotency), so a refused write is recorded too.
  app.use("/v1/*", auditRequests(deps, app));
  // The route groups, at their first request; the document lists them in their declared order.
  routes.place(app);
  registerDocs(
    app,
    {
      service: "admin",
      idempotentWrites: true,
      title: "Admin API",
      description:
        "Operator API: customers, their mail and ads settings, API keys, operator accounts and the audit log.\n\nAuthentication: an operator's own API token (`op_live_…`, made in the console or with `POST /v1/me/tokens`), or the console's session. The shared `ADMIN_TOKEN` is a bootstrap credential: it works (as owner) only until the first owner account exists (`npm run admin -- operators:create --email … --role owner`); afterwards it answers 401 unless the server runs with `ADMIN_TOKEN_BREAK_GLASS=true`, and then every request made with it is audited as `break_glass`.\n\nRoles: every operation names its minimum role in `x-required-role` and in its description: `owner` (everything, operator management), `admin` (everything but operator management), `support` (reads, plus the writes marked for support). A role below it answers 403 `forbidden` with `details.reason: \"role_required\"`.\n\nSecrets: no role reads a stored credential's value in an ordinary answer. Every role sees that a credential is set, when it last changed and by whom (`CredentialState`); an admin reads a value only through an operation of kind `secret-read` (`x-operation-kind`, a POST that changes nothing, answers are never kept for idempotency replay), each call recorded in the audit log with the secret's name in `target.secret`. Operations marked `x-recent-authentication` (revealing or rotating a secret, setting a provider credential, creating or promoting an owner) need, through a console session, a sign-in or re-authentication no older than `CONSOLE_REAUTH_MINUTES`.\n\nAudit: every write (`x-operation-kind: write`) and every secret read, whatever its answer, and every break-glass request leaves one entry in the audit log (`GET /v1/audit-log`), which no API can change or delete. So does every refusal on the operator side: a presented operator token that is unknown or revoked (401, `operation_id: \"authenticate\"`), a throttled credential or sign-in (429), a CSRF or cross-origin refusal and a role or re-authentication refusal (403), each with `reason`, the credential's visible `token_prefix` and the client address; identical refusals within a minute are one entry with their `count`.\n\nSign-in (console, `POST /console/sign-in`): " +
        SIGN_IN_BACKOFF_SENTENCE +
        "\n\nIdempotency: every POST/PUT/PATCH takes `Idempotency-Key` (a UUID; quoted or bare), as the customer APIs do: the first response is kept 24 hours per method and path and replayed with `Idempotent-Replayed: true`; another body under the same key answers 409 `idempotency_key_reused`, and while the first request still runs 409 `idempotency_key_in_use` with `Retry-After`. So a retried `POST /v1/customers` creates one customer.\n\nRequest bodies: at most 4.5 MB (4,718,592 bytes). A larger body answers 413 `payload_too_large` as soon as it passes the limit while streaming in, before the operator credential is checked, and the connection is closed. `GET`, `HEAD` and `OPTIONS` take no body.",
      basePath: "/admin",
      pathPrefix: "/v1",
      auth: { scheme: "adminToken", description: "An operator's API token (`op_live_…`), or the bootstrap `ADMIN_TOKEN` until the first owner exists." },
    },
    async (router) => {
      await routes.registerAll(router);
      // Every operator route declares its role (adminRoute): checked over all of them whenever the document is made.
      requireDeclaredRoles(router);
    },
  );
  return app;
}
