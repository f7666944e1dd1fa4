import type { CoreDeps } from "../../../core/context";
import type { AdminRouter } from "../shared";
import { registerEnableCustomerWebhook } from "./enable";
import { registerListCustomerWebhooks } from "./list";
import { registerListCustomerWebhookDeliveries } from "./list-deliveries";
import { registerRedeliverCustomerWebhookDelivery } from "./redeliver";
import { registerSendCustomerWebhookTestEvent } from "./send-test";
import { webhookServices } from "../../webhooks/schema";

/**
 * A customer's outgoing webhooks of both services, as the customer sees them: endpoints with their state,
 * delivery logs, redelivery, test events and re-enabling (the same services as the customer routes).
 */
export function registerCustomerWebhookRoutes(router: AdminRouter, deps: CoreDeps): void {
  for (const kind of webhookServices) {
    registerListCustomerWebhooks(router, deps, kind);
    registerListCustomerWebhookDeliveries(router, deps, kind);
    registerRedeliverCustomerWebhookDelivery(router, deps, kind);
    registerEnableCustomerWebhook(router, deps, kind);
    registerSendCustomerWebhookTestEvent(router, deps, kind);
  }
}
