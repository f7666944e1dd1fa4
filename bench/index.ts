import { benchAdTemplates } from "./ad-templates";
import { benchAdsAudiences } from "./ads-audiences";
import { benchAdsInsights } from "./ads-insights";
import { benchHealth } from "./health";
import { benchRender } from "./render";
import { benchSendJobs } from "./send-jobs";

/** `npm run bench`: every figure the design targets name, printed in one run on this machine. */
await benchHealth();
await benchRender();
await benchAdTemplates();
await benchAdsInsights();
await benchSendJobs();
await benchAdsAudiences();
