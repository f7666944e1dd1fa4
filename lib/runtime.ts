import { OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { createAdminApp } from "./admin/app";
import { createAdsApp } from "./ads/app";
import type { AppEnv } from "./core/context";
import { rootLlmsText } from "./core/docs";
import type { RuntimeDeps } from "./providers";
import { announcesBody, closeAfterAnswer } from "./core/body-limit";
import { errorBody, noEndpointError } from "./core/errors";
import { createInternalApi } from "./internal-api";
import { createMailApp } from "./mail/app";
import { createPublicFilesRoutes, FILES_PATH } from "./core/public-files";
import { createConsoleApp } from "./console/app";
import { FAVICON } from "./console/assets";
import { sendCompressed } from "./core/compressed";
import { MCP_PATH, mountMcp } from "./mcp";
import { adminDepsOf, serviceDepsOf } from "./services";

export type { RuntimeDeps };

/**
 * Where the Demo's data stands in this process: `none` without a Demo being prepared (a server with real
 * providers, tests), `preparing` while `npm start` writes its templates, sample images and insights after
 * listening, then `ready` (or `failed`, logged). `GET /health` answers it.
 */
type DemoDataState = "none" | "preparing" | "ready" | "failed";

/**
 * The whole HTTP surface of one deployment: `/mail/v1`, `/ads/v1`, `/admin/v1`, `/console` and `/api/*`
 * (provider webhooks, queue workers, crons). `npm start`, the tests and the image function (api/media) build
 * it here, so they serve the same routes; every other Vercel function builds only its own app from the same
 * pieces (lib/functions/).
 */
export function createRootApp(deps: RuntimeDeps) {
  // Each service's deps built once per runtime, sharing the one blob store.
  const { mailDeps, adsDeps, assets } = serviceDepsOf(deps);
  const { api, cronDeps } = createInternalApi(deps, { mailDeps, adsDeps });
  const mail = createMailApp(mailDeps);
  const ads = createAdsApp(adsDeps);
  const admin = createAdminApp(adminDepsOf(deps, adsDeps, mailDeps));
  const root = new OpenAPIHono<AppEnv>();
  const startup: { demoData: DemoDataState } = { demoData: "none" };
  // Liveness for a load balancer or a script waiting for `npm start`: no key, no database, nothing read.
  // The services' own `GET /{mail,ads}/v1/health` check the key and answer in their envelope.
  root.get("/health", (c) => {
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Cache-Control", "no-store");
    // Nothing here reads a body: one still coming ends with the connection (see `closeAfterAnswer`).
    if (announcesBody(c)) closeAfterAnswer(c);
    return c.json({ status: "ok", demo_data: startup.demoData });
  });
  // The root's own answers say nosniff like every service's (the service apps set it on theirs).
  root.use("/llms.txt", answersNosniff);
  root.use("/favicon.ico", answersNosniff);
  root.use(MCP_PATH, answersNosniff);
  // Each service app strips its own prefix (see `pathWithout`) and answers its own 404/405.
  root.get("/llms.txt", (c) => c.text(rootLlmsText()));
  // Browsers ask for /favicon.ico on any page without an icon link (the API's JSON pages): the console's icon.
  root.get("/favicon.ico", (c) => sendCompressed(c, FAVICON, "image/svg+xml", "public, max-age=86400"));
  root.all("/mail/*", (c) => mail.fetch(c.req.raw, c.env));
  root.all("/ads/*", (c) => ads.fetch(c.req.raw, c.env));
  root.all("/admin/*", (c) => admin.fetch(c.req.raw, c.env));
  const operatorConsole = createConsoleApp({ ...deps, admin });
  root.all("/console/*", (c) => operatorConsole.fetch(c.req.raw, c.env));
  root.all("/api/*", (c) => api.fetch(c.req.raw, c.env));
  mountMcp(root);
  // Embedded mode: published images are served by the app itself (production: Vercel Blob's CDN).
  if (assets.local) root.route(FILES_PATH, createPublicFilesRoutes(assets.local));
  root.notFound((c) => {
    const requestId = crypto.randomUUID();
    c.header("X-Request-Id", requestId);
    c.header("X-Content-Type-Options", "nosniff");
    // Nothing here reads a body: one still coming ends with the connection (see `closeAfterAnswer`).
    if (announcesBody(c)) closeAfterAnswer(c);
    return c.json(errorBody(noEndpointError(c.req.method, c.req.path), "mail", requestId), 404);
  });
  return { root, mail, ads, admin, mailDeps, adsDeps, cronDeps, startup };
}

/** Sets `X-Content-Type-Options: nosniff` on the answer. */
const answersNosniff: MiddlewareHandler = async (c, next) => {
  await next();
  c.res.headers.set("X-Content-Type-Options", "nosniff");
};
