import { createAdminApp } from "../admin/app";
import { standaloneAdminDeps } from "../services";
import { functionHandler } from "../vercel";

/** api/admin (`/admin/v1/*`): the admin app alone; its template draft preview (drawn) is api/media's (vercel.json). */
export const handler = functionHandler(
  "admin",
  (deps) => createAdminApp(standaloneAdminDeps(deps)),
  (app) => app,
);
