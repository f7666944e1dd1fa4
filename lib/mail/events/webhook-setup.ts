import { eq } from "drizzle-orm";
import type { CoreDeps } from "../../core/context";
import { mailProviderConfigs } from "../../db/schema";
import { postmarkPayloads, type PostmarkRecordType } from "./postmark-payloads";
import { POSTMARK_WEBHOOK_PATH } from "./receiver";
import { receiverCredentials } from "./receiver-auth";

export type PostmarkWebhookSetup = {
  url: string | null;
  configured: boolean;
  username: string | null;
  password: string | null;
  customer_id: string | null;
  attribution: "customer_url" | "message_metadata";
  message_streams: string[];
  record_types: PostmarkRecordType[];
  allowed_ips: string[];
};

/**
 * What an operator pastes into Postmark's webhook settings. With a customer: that customer's own URL
 * (`/api/postmark/webhook/{customer_id}`), which attributes every event, including reactivations and
 * manual suppressions that carry no message id, to the customer; the events must be enabled on both of
 * its streams. Without: the shared URL, which attributes events only through `Metadata.message_id`.
 */
export async function postmarkWebhookSetup(deps: Pick<CoreDeps, "db" | "config" | "publicBaseUrl">, customerId: string | null): Promise<PostmarkWebhookSetup> {
  const credentials = receiverCredentials(deps.config);
  const url = new URL(`${deps.publicBaseUrl}${POSTMARK_WEBHOOK_PATH}${customerId ? `/${customerId}` : ""}`);
  if (credentials) {
    url.username = encodeURIComponent(credentials.username);
    url.password = encodeURIComponent(credentials.password);
  }
  let streams: string[] = [];
  if (customerId) {
    const [config] = await deps.db
      .select({ transactional: mailProviderConfigs.transactionalStream, broadcast: mailProviderConfigs.broadcastStream })
      .from(mailProviderConfigs)
      .where(eq(mailProviderConfigs.customerId, customerId));
    streams = [config?.transactional, config?.broadcast].filter((s): s is string => Boolean(s));
  }
  return {
    url: credentials ? url.toString() : null,
    configured: credentials !== null,
    username: credentials?.username ?? null,
    password: credentials?.password ?? null,
    customer_id: customerId,
    attribution: customerId ? "customer_url" : "message_metadata",
    message_streams: streams,
    record_types: Object.keys(postmarkPayloads) as PostmarkRecordType[],
    allowed_ips: (deps.config.POSTMARK_WEBHOOK_ALLOWED_IPS ?? "").split(",").map((s) => s.trim()).filter(Boolean),
  };
}
