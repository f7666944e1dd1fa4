import { eq } from "drizzle-orm";
import type { CoreDeps } from "../../core/context";
import { mailProviderConfigs } from "../../db/schema";
import { postmarkPayloads, type PostmarkRecordType } from "./postmark-payloads";
import { postmarkWebhookUrl } from "./receiver";
import { rotateWebhookCredentials, webhookCredentials, type WebhookCredentials } from "./receiver-credentials";

export type PostmarkWebhookSetup = {
  customer_id: string;
  /** The receiver's URL without credentials. */
  url: string;
  /** The URL to paste into Postmark: `url` with the username and password in it. */
  url_with_credentials: string;
  username: string;
  password: string;
  previous_password_valid_until: string | null;
  rotated_at: string;
  message_streams: string[];
  record_types: PostmarkRecordType[];
  allowed_ips: string[];
};

type SetupDeps = Pick<CoreDeps, "db" | "clock" | "secrets" | "config" | "publicBaseUrl">;

async function setupOf(deps: SetupDeps, customerId: string, credentials: WebhookCredentials): Promise<PostmarkWebhookSetup> {
  const plain = postmarkWebhookUrl(deps.publicBaseUrl, customerId);
  const url = new URL(plain);
  url.username = encodeURIComponent(credentials.username);
  url.password = encodeURIComponent(credentials.password);
  const [config] = await deps.db
    .select({ transactional: mailProviderConfigs.transactionalStream, broadcast: mailProviderConfigs.broadcastStream })
    .from(mailProviderConfigs)
    .where(eq(mailProviderConfigs.customerId, customerId));
  return {
    customer_id: customerId,
    url: plain,
    url_with_credentials: url.toString(),
    username: credentials.username,
    password: credentials.password,
    previous_password_valid_until: credentials.previousValidUntil?.toISOString() ?? null,
    rotated_at: credentials.rotatedAt.toISOString(),
    message_streams: [config?.transactional, config?.broadcast].filter((s): s is string => Boolean(s)),
    record_types: Object.keys(postmarkPayloads) as PostmarkRecordType[],
    allowed_ips: (deps.config.POSTMARK_WEBHOOK_ALLOWED_IPS ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
  };
}

/**
 * What an operator pastes into the webhook settings of the customer's Postmark server: the customer's own
 * URL with its own credentials (made on first use), the streams to add it on and the triggers to enable.
 */
export async function postmarkWebhookSetup(deps: SetupDeps, customerId: string): Promise<PostmarkWebhookSetup> {
  return setupOf(deps, customerId, await webhookCredentials(deps, customerId));
}

/** A new password for the customer's URL; the previous one keeps working for `graceSeconds`. */
export async function rotatePostmarkWebhook(deps: SetupDeps, customerId: string, graceSeconds: number): Promise<PostmarkWebhookSetup> {
  return setupOf(deps, customerId, await rotateWebhookCredentials(deps, customerId, graceSeconds));
}
