import { z } from "@hono/zod-openapi";
import { adsWebhookEvents, mailWebhookEvents, type AdsWebhookEvent, type MailWebhookEvent } from "../../db/schema";
import { AdsDeliveryListQuery, AdsWebhookDelivery } from "../../ads";
import { ADS_WEBHOOKS } from "../../ads";
import { DeliveryListQuery, Webhook, WebhookDelivery } from "../../mail";
import { MAIL_WEBHOOKS } from "../../mail";
import { CustomerIdParam } from "../customers/schema";

export const tags = ["Webhooks"];

/** An endpoint of either service as the customer lists it (mail's `Webhook`; ads' `AdsWebhook` has the same fields). */
const CustomerWebhook = Webhook.extend({
  events: z
    .array(z.enum([...mailWebhookEvents, ...adsWebhookEvents]))
    .openapi({ description: "Subscribed events (the service's own names).", example: ["job.completed"] }),
}).openapi("CustomerWebhook");

/** Both services' outgoing webhooks, seen by the operator with the customer's own schemas. */
export const webhookServices = [
  {
    service: "mail",
    label: "Mail",
    store: MAIL_WEBHOOKS,
    endpoint: CustomerWebhook,
    delivery: WebhookDelivery,
    query: DeliveryListQuery,
  },
  {
    service: "ads",
    label: "Ads",
    store: ADS_WEBHOOKS,
    endpoint: CustomerWebhook,
    delivery: AdsWebhookDelivery,
    query: AdsDeliveryListQuery,
  },
] as const;

export type WebhookService = (typeof webhookServices)[number];

/** Either service's event names (each route answers only its own service's). */
export type WebhookEvent = MailWebhookEvent | AdsWebhookEvent;

export const WebhookParams = CustomerIdParam.extend({
  webhookId: z
    .uuid()
    .openapi({ param: { name: "webhookId", in: "path" }, description: "Webhook endpoint id.", example: "4d2a7f0e-8c1b-4b6e-9f3d-1a2b3c4d5e6f" }),
});

export const DeliveryParams = WebhookParams.extend({
  deliveryId: z.uuid().openapi({ param: { name: "deliveryId", in: "path" }, description: "Delivery id.", example: "0d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6" }),
});

/** Marks the two writes a `support` operator may make (support reads, plus reactivation and redelivery). */
