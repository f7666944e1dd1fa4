import { createMailApp } from "../mail/app";
import { createAssetStorage } from "../blob-storage";
import { createMailDeps } from "../mail/deps";
import { functionHandler } from "../vercel";

/**
 * api/mail (`/mail/v1/*`): the mail app alone; its image route (asset completion) is api/media's (vercel.json).
 * Its deps are built here as `mailDepsOf` (lib/services.ts) builds them, without importing that module, which
 * also reaches the ads deps (the Graph client): the function's cold start loads none of the ads code.
 */
export const handler = functionHandler(
  "mail",
  (deps) => createMailApp(createMailDeps({ ...deps, assets: createAssetStorage(deps) })),
  (app) => app,
);
