import { createWebhook, deleteWebhook, listWebhooks, type WebhookView } from "../../core/webhooks/registrations";
import type { AdsWebhookEvent } from "../../db/schema";
import type { AdsDeps } from "../deps";
import { ADS_WEBHOOKS } from "./events";

/** The spec's registration answer: the secret is called `signing_secret` and shown only here. */
export async function registerAdsWebhook(deps: AdsDeps, customerId: string, input: { url: string; events: AdsWebhookEvent[] }) {
  const { secret, ...webhook } = await createWebhook<AdsWebhookEvent>(ADS_WEBHOOKS, deps, customerId, input);
  return {
    id: webhook.id,
    url: webhook.url,
    events: webhook.events,
    active: webhook.active,
    status: webhook.status,
    created_at: webhook.created_at,
    signing_secret: secret,
  };
}

export async function listAdsWebhooks(deps: AdsDeps, customerId: string, page: { limit: number; offset: number }): Promise<WebhookView<AdsWebhookEvent>[]> {
  const all = await listWebhooks<AdsWebhookEvent>(ADS_WEBHOOKS, deps.db, customerId);
  return all.slice(page.offset, page.offset + page.limit);
}

export function deleteAdsWebhook(deps: AdsDeps, customerId: string, id: string): Promise<void> {
  return deleteWebhook(ADS_WEBHOOKS, deps.db, customerId, id);
}
