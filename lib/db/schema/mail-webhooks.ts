import { webhookDeliveriesTable, webhookEndpointsTable } from "./webhooks";

export const mailWebhookEvents = ["job.completed", "job.paused", "message.bounced", "suppression.changed"] as const;
export type MailWebhookEvent = (typeof mailWebhookEvents)[number];

/** The mail service's webhook endpoints and their outbox (columns and rules: `./webhooks`). */
export const mailWebhooks = webhookEndpointsTable<MailWebhookEvent>("mail_webhooks");

export const mailWebhookDeliveries = webhookDeliveriesTable("mail_webhook_deliveries", mailWebhooks, mailWebhookEvents);
