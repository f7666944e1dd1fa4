import { registerWebhookWorker } from "../core/webhooks/engine";
import type { MailDeps } from "./deps";
import { registerSendJobWorkers } from "./send-jobs/workers";
import { MAIL_WEBHOOKS } from "./webhooks/emit";

/** Every queue topic of the mail service: send-job batches, starts and reconciliation, outgoing webhooks. */
export function registerMailWorkers(deps: MailDeps): void {
  registerSendJobWorkers(deps);
  registerWebhookWorker(MAIL_WEBHOOKS, deps);
}
