import type { AdsDeps } from "../../deps";
import type { AdsRouter } from "../shared";
import { registerTargetingGeo } from "./geo";
import { registerTargetingInterests } from "./interests";

export function registerTargetingRoutes(router: AdsRouter, deps: AdsDeps): void {
  registerTargetingGeo(router, deps);
  registerTargetingInterests(router, deps);
}
