import { benchAdTemplates } from "./ad-templates";
import { benchAdsAudiences } from "./ads-audiences";
import { benchAdsInsights } from "./ads-insights";
import { benchBulkBytes } from "./bulk-bytes";
import { benchColdStart } from "./cold-start";
import { benchHealth } from "./health";
import { benchLocalStart } from "./local-start";
import { benchMailStats } from "./mail-stats";
import { benchRender } from "./render";
import { benchSendJobs } from "./send-jobs";

/** `npm run bench`: every figure the design targets name, printed in one run on this machine. */
await benchLocalStart();
await benchColdStart();
await benchHealth();
await benchRender();
await benchAdTemplates();
await benchAdsInsights();
await benchSendJobs();
await benchMailStats();
await benchBulkBytes();
await benchAdsAudiences();
