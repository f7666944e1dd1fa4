import type { AdsDeps } from "../../deps";
import type { AdsRouter } from "../shared";
import { registerAudienceContactRoutes } from "./contacts";
import { registerCreateCustomAudience } from "./create-custom";
import { registerCreateLookalikeAudience } from "./create-lookalike";
import { registerDeleteAudience } from "./delete";
import { registerGetAudience } from "./get";
import { registerListAudiences } from "./list";
import { registerUpdateAudience } from "./update";

export function registerAudienceRoutes(router: AdsRouter, deps: AdsDeps): void {
  registerListAudiences(router, deps);
  registerCreateCustomAudience(router, deps);
  registerCreateLookalikeAudience(router, deps);
  registerGetAudience(router, deps);
  registerUpdateAudience(router, deps);
  registerDeleteAudience(router, deps);
  registerAudienceContactRoutes(router, deps);
}
