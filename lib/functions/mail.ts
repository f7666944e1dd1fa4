import { createMailApp } from "../mail/app";
import { createAssetStorage } from "../blob-storage";
import { createMailDeps } from "../mail/deps";
import { functionHandler } from "../vercel";

/**
 * api/mail (`/mail/v1/*`): the mail app alone; its image route (asset completion) is api/media's (vercel.json).
 * Its deps come from the mail service's one factory (lib/mail/deps.ts), called here rather than through
 * lib/services.ts, which also reaches the ads deps (the Graph client): the function's cold start loads none
 * of the ads code.
 */
export const handler = functionHandler(
  "mail",
  (deps) => createMailApp(createMailDeps(deps, createAssetStorage(deps))),
  (app) => app,
);
