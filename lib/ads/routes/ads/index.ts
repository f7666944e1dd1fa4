import type { AdsDeps } from "../../deps";
import type { AdsRouter } from "../shared";
import { registerCreateAd } from "./create";
import { registerDeleteAd } from "./delete";
import { registerListAds } from "./list";
import { registerUpdateAd } from "./update";

export function registerAdRoutes(router: AdsRouter, deps: AdsDeps): void {
  registerCreateAd(router, deps);
  registerListAds(router, deps);
  registerUpdateAd(router, deps);
  registerDeleteAd(router, deps);
}
