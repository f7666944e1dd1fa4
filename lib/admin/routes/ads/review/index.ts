import type { AdsDeps } from "../../../../ads";
import type { AdminRouter } from "../../shared";
import { registerListCustomerAds } from "./list-ads";
import { registerListCustomerAdSets } from "./list-adsets";

/** A customer's ad sets and ads with their review state, for support ("why is this ad not running?"). */
export function registerAdsReviewRoutes(router: AdminRouter, deps: AdsDeps): void {
  registerListCustomerAdSets(router, deps);
  registerListCustomerAds(router, deps);
}
