import type { CoreDeps } from "../../core/context";
import { enqueueWebhookEvent, publishDeliveries, type WebhookStore } from "../../core/webhooks/engine";
import type { Tx } from "../../db/client";
import { adsWebhookDeliveries, adsWebhooks } from "../../db/schema";

/** The ads service's webhook tables and queue topic for the shared delivery engine (`lib/core/webhooks`). */
export const ADS_WEBHOOKS: WebhookStore = { topic: "ads-webhook-delivery", endpoints: adsWebhooks, deliveries: adsWebhookDeliveries };

/** One observed change of an ad's effective status (a row of `ads_status_changes`). */
export type AdStatusChange = {
  id: string;
  adId: string;
  previousStatus: string;
  effectiveStatus: string;
  reason: string | null;
  createdAt: Date;
};

/**
 * The spec's payload, `{ id, type, created, data: { ad_id, effective_status, reason } }`, plus
 * `data.previous_status` (additive). `id` is the event id: the same for every endpoint and every retry;
 * the delivery id (`X-Service-Delivery`) differs per endpoint.
 */
function adStatusChangedBody(change: AdStatusChange): string {
  return JSON.stringify({
    id: change.id,
    type: "ad.status_changed",
    created: Math.floor(change.createdAt.getTime() / 1000),
    data: { ad_id: change.adId, effective_status: change.effectiveStatus, reason: change.reason, previous_status: change.previousStatus },
  });
}

/** Outbox rows for the change, in the transaction that recorded it; publish them after the commit. */
export function enqueueAdStatusChanged(tx: Tx, customerId: string, change: AdStatusChange): Promise<string[]> {
  const body = adStatusChangedBody(change);
  return enqueueWebhookEvent(ADS_WEBHOOKS, tx, change.createdAt, customerId, "ad.status_changed", () => body);
}

export function publishAdsDeliveries(deps: Pick<CoreDeps, "queue" | "logger">, ids: readonly string[]): Promise<void> {
  return publishDeliveries(ADS_WEBHOOKS, deps, ids);
}
