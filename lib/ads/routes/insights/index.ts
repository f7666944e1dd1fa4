import type { AdsDeps } from "../../deps";
import type { AdsRouter } from "../shared";
import { registerGetInsights } from "./get";

export function registerInsightsRoutes(router: AdsRouter, deps: AdsDeps): void {
  registerGetInsights(router, deps);
}
