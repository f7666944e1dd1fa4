import type { OpenAPIHono } from "@hono/zod-openapi";
import { createServiceApp } from "../core/app";
import type { AppEnv } from "../core/context";
import { registerDocs } from "../core/docs";
import { registerGetCurrentKey } from "../core/current-key";
import { registerGetHealth } from "../core/health";
import { lazyRouteGroups } from "../core/route-groups";
import { mailRouteGroups } from "./routes";
import type { MailDeps } from "./deps";

const MAIL_DESCRIPTION = `Newsletter and transactional e-mail through Postmark: MJML block templates rendered on the server, send jobs to many recipients, delivery tracking, suppressions and image assets.

Conventions: every response is \`{ data, request_id }\`; lists with a cursor add \`paging: { after, has_next }\`. Errors are \`{ error: { code, message, details: [{ path, message }] }, request_id }\`. \`details\` is that array everywhere (empty when no field is to blame; a quota's figures are in \`message\`), except the 409 conflicts, which name their cause in \`details.reason\`, and the 403 of an account whose sending is not set up (\`details.missing\`). A missing required field answers 400 \`bad_request\`; present but invalid fields answer 422 \`validation_error\`. Another customer's id answers 404, never 403.

Rate limit: 1,000 requests per minute per customer. Every authenticated response carries \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\`, \`X-RateLimit-Reset\` (seconds) and the IETF \`RateLimit-Policy\` / \`RateLimit\` pair; a 429 carries \`Retry-After\`. If the limiter itself is unreachable, requests pass and the headers are omitted.

Idempotency: send \`Idempotency-Key\` (a UUID; quoted or bare) on POST/PUT/PATCH. The first response is kept 24 hours per customer, method and path and replayed with \`Idempotent-Replayed: true\`; the same key with another body answers 409 (a \`details\` entry \`{ path: "reason", message: "idempotency_key_reused" }\`), and while the first request still runs 409 (\`idempotency_key_in_use\`) with \`Retry-After\`. 5xx answers are not kept, except a send whose outcome is unknown (it carries \`message_id\`), so a retry never sends twice.

Request bodies: at most 4.5 MB (4,718,592 bytes); the signed upload URL takes files up to 20 MiB. A larger body answers 413 \`payload_too_large\` as soon as it passes the limit while streaming in, before authentication, and the connection is closed; the rest is never read. \`GET\`, \`HEAD\` and \`OPTIONS\` take no body (one sent answers 413).

Headers: \`X-Request-Id\` (1–128 characters of \`A-Za-z0-9._:-\`) is echoed, otherwise a UUID is generated; \`Service-Version: v1\` pins the version (any other value answers 400).`;

/** The HTTP app only; the queue workers of the mail service are registered by the runtime (`registerMailWorkers`). */
export function createMailApp(deps: MailDeps): OpenAPIHono<AppEnv> {
  const routes = lazyRouteGroups(deps, mailRouteGroups);
  const app = createServiceApp({
    service: "mail",
    mountPath: "/mail",
    deps,
    routeGroups: routes,
  });
  registerGetHealth(app, deps, "mail");
  registerGetCurrentKey(app, deps, "mail");
  // The route groups, at their first request; the document lists them in their declared order.
  routes.place(app);
  registerDocs(app, { service: "mail", title: "Mail service API", description: MAIL_DESCRIPTION, basePath: "/mail", pathPrefix: "/v1" }, async (router) => {
    registerGetHealth(router, deps, "mail");
    registerGetCurrentKey(router, deps, "mail");
    await routes.registerAll(router);
  });
  return app;
}
