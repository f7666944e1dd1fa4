import { createAdsApp } from "../ads/app";
import { adsDepsOf } from "../services";
import { functionHandler } from "../vercel";

/** api/ads (`/ads/v1/*`): the ads app alone; its image routes (media images, template renders, preview.png) are api/media's (vercel.json). */
export const handler = functionHandler(
  "ads",
  (deps) => createAdsApp(adsDepsOf(deps)),
  (app) => app,
);
