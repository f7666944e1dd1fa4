import type { AdsDeps } from "../../deps";
import type { AdsRouter } from "../shared";
import { registerCreateCreative } from "./create";
import { registerDeleteCreative } from "./delete";
import { registerListCreatives } from "./list";
import { registerUpdateCreative } from "./update";

export function registerCreativeRoutes(router: AdsRouter, deps: AdsDeps): void {
  registerCreateCreative(router, deps);
  registerListCreatives(router, deps);
  registerUpdateCreative(router, deps);
  registerDeleteCreative(router, deps);
}
