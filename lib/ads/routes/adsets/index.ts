import type { AdsDeps } from "../../deps";
import type { AdsRouter } from "../shared";
import { registerCreateAdSet } from "./create";
import { registerDeleteAdSet } from "./delete";
import { registerListAdSets } from "./list";
import { registerUpdateAdSet } from "./update";

export function registerAdSetRoutes(router: AdsRouter, deps: AdsDeps): void {
  registerCreateAdSet(router, deps);
  registerListAdSets(router, deps);
  registerUpdateAdSet(router, deps);
  registerDeleteAdSet(router, deps);
}
