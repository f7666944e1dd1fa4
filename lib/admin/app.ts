import type { OpenAPIHono } from "@hono/zod-openapi";
import { createServiceApp } from "../core/app";
import type { AppEnv } from "../core/context";
import { registerDocs } from "../core/docs";
import { tooManyAuthFailures } from "../core/auth-throttle";
import { clientAddress } from "../core/client-address";
import { ApiError } from "../core/errors";
import { operatorIdempotency } from "../core/route";
import { safeEqual } from "../core/secrets";
import type { AdminDeps } from "./deps";
import { registerAdminRoutes } from "./routes";

const ADMIN_PUBLIC_PATHS = new Set(["/v1/openapi.json", "/v1/docs", "/v1/docs/scalar.js", "/v1/llms.txt"]);

/** The operator API: customers and their API keys, the mail side (block library, design, frame, provider, templates) and the ads side (account, targets, naming, templates). */
export function createAdminApp(deps: AdminDeps): OpenAPIHono<AppEnv> {
  const app = createServiceApp({ service: "admin", mountPath: "/admin", deps });
  app.use("/v1/*", async (c, next) => {
    if (ADMIN_PUBLIC_PATHS.has(c.req.path)) return next();
    const address = clientAddress(c) ?? "unknown";
    const blocked = deps.authThrottle.retryAfter(address);
    if (blocked > 0) throw tooManyAuthFailures(blocked, deps.config.AUTH_FAILURES_PER_MINUTE);
    const match = /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "");
    if (!match?.[1] || !safeEqual(match[1], deps.adminToken)) {
      const wait = await deps.authThrottle.failed(address);
      if (wait > 0) throw tooManyAuthFailures(wait, deps.config.AUTH_FAILURES_PER_MINUTE);
      throw new ApiError("unauthorized", "Operator token missing or wrong. Send Authorization: Bearer <ADMIN_TOKEN>.");
    }
    await next();
  });
  // Every operator write takes `Idempotency-Key` with the customer APIs' rules (after the token check).
  app.use("/v1/*", operatorIdempotency(deps));
  registerAdminRoutes(app, deps);
  registerDocs(app, {
    service: "admin",
    idempotentWrites: true,
    title: "Admin API",
    description:
      "Operator API: customers, their mail and ads settings, and API keys. Authenticated with the operator token.\n\nIdempotency: every POST/PUT/PATCH takes `Idempotency-Key` (a UUID; quoted or bare), as the customer APIs do: the first response is kept 24 hours per method and path and replayed with `Idempotent-Replayed: true`; another body under the same key answers 409 `idempotency_key_reused`, and while the first request still runs 409 `idempotency_key_in_use` with `Retry-After`. So a retried `POST /v1/customers` creates one customer.\n\nRequest bodies: at most 4.5 MB (4,718,592 bytes). A larger body answers 413 `payload_too_large` as soon as it passes the limit while streaming in, before the operator token is checked, and the connection is closed. `GET`, `HEAD` and `OPTIONS` take no body.",
    basePath: "/admin",
    pathPrefix: "/v1",
    auth: { scheme: "adminToken", description: "Operator token (`ADMIN_TOKEN`; embedded default in `.data/admin-token`)." },
  });
  return app;
}
