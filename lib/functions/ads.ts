import { createAdsApp } from "../ads/app";
import { createAdsDeps } from "../ads/deps";
import { createAssetStorage } from "../blob-storage";
import { functionHandler } from "../vercel";

/**
 * api/ads (`/ads/v1/*`): the ads app alone; its image routes (media images, template renders, preview.png) are
 * api/media's (vercel.json). Its deps come from the ads service's one factory (lib/ads/deps.ts), called here
 * rather than through lib/services.ts, which also reaches the mail deps: the function's cold start loads none
 * of the mail code.
 */
export const handler = functionHandler(
  "ads",
  (deps) => createAdsApp(createAdsDeps(deps, createAssetStorage(deps).blobs)),
  (app) => app,
);
