import { OpenAPIHono } from "@hono/zod-openapi";
import { createAdminApp } from "./admin/app";
import { createAdsApp } from "./ads/app";
import type { AppEnv, CoreDeps } from "./core/context";
import { ApiError, errorBody } from "./core/errors";
import { createCronRoutes } from "./cron/routes";
import { createMailApp } from "./mail/app";

export type RuntimeDeps = CoreDeps & { adminToken: string };

/**
 * The whole HTTP surface of one deployment: `/mail/v1`, `/ads/v1`, `/admin/v1` and `/api/*`
 * (provider webhooks, queue workers, crons). `npm start`, the Vercel entries and the tests all
 * build it here, so they serve the same routes.
 */
export function createRootApp(deps: RuntimeDeps) {
  const mail = createMailApp(deps);
  const ads = createAdsApp(deps);
  const admin = createAdminApp(deps);
  const root = new OpenAPIHono<AppEnv>();
  // `mount` strips the prefix: each service app sees `/v1/...` and answers its own 404/405.
  root.mount("/mail", mail.fetch);
  root.mount("/ads", ads.fetch);
  root.mount("/admin", admin.fetch);
  root.route("/api/cron", createCronRoutes(deps));
  root.notFound((c) => {
    const requestId = crypto.randomUUID();
    c.header("X-Request-Id", requestId);
    return c.json(errorBody(new ApiError("not_found", `No endpoint ${c.req.method} ${c.req.path}.`), "mail", requestId), 404);
  });
  return { root, mail, ads, admin };
}
