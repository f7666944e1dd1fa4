import { benchAdsInsights } from "./ads-insights";
await benchAdsInsights();
