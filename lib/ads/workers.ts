import { registerWebhookWorker } from "../core/webhooks/engine";
import type { AdsDeps } from "./deps";
import { registerInsightsSnapshotWorker } from "./insights/snapshots";
import { registerVideoRenderWorker } from "./templates/video-render";
import { ADS_WEBHOOKS } from "./webhooks/events";

/** Every queue topic of the ads service: video template renders, outgoing webhooks, insights snapshots. */
export function registerAdsWorkers(deps: AdsDeps): void {
  registerVideoRenderWorker(deps);
  registerWebhookWorker(ADS_WEBHOOKS, deps);
  registerInsightsSnapshotWorker(deps);
}
