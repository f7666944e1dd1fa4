import { createAdminApp } from "../admin/app";
import { createConsoleApp } from "../console/app";
import { standaloneAdminDeps } from "../services";
import { functionHandler } from "../vercel";

/** api/console (`/console`, `/console/*`): the console over the admin app in the same runtime (its `/console/api/*`). */
export const handler = functionHandler(
  "console",
  (deps) => createConsoleApp({ ...deps, admin: createAdminApp(standaloneAdminDeps(deps)) }),
  (app) => app,
);
