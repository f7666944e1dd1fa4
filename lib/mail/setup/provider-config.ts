import { eq } from "drizzle-orm";
import type { Database } from "../../db/client";
import { mailFrames, mailProviderConfigs, type SenderRecord } from "../../db/schema";
import { ForbiddenError } from "../../core/errors";
import type { SecretBox } from "../../core/secrets";
import type { MailProviderConfigResponse, MailReadinessResponse } from "./provider-config-schema";

export type ProviderConfigInput = {
  server_token?: string;
  transactional_stream?: string;
  broadcast_stream?: string;
  verified_senders?: string[];
  verified_domains?: string[];
  default_newsletter_from?: SenderRecord | null;
  default_transactional_from?: SenderRecord | null;
  bulk_api_enabled?: boolean;
};

/** What the admin sees: never the token, only whether one is set (the admin API's schema). */
export type ProviderConfigView = MailProviderConfigResponse;

type ProviderCredentials = {
  serverToken: string;
  transactionalStream: string;
  broadcastStream: string;
  verifiedSenders: string[];
  verifiedDomains: string[];
  defaultNewsletterFrom: SenderRecord | null;
  defaultTransactionalFrom: SenderRecord | null;
  /** Newsletter batches go to Postmark's Bulk API (the operator's switch, once Postmark enabled it). */
  bulkApiEnabled: boolean;
};

export type ReadinessItem = MailReadinessResponse["items"][number];

type Row = typeof mailProviderConfigs.$inferSelect;

function view(row: Row | undefined): ProviderConfigView {
  return {
    server_token_set: Boolean(row?.serverTokenSealed),
    transactional_stream: row?.transactionalStream ?? null,
    broadcast_stream: row?.broadcastStream ?? null,
    verified_senders: row?.verifiedSenders ?? [],
    verified_domains: row?.verifiedDomains ?? [],
    default_newsletter_from: row?.defaultNewsletterFrom ?? null,
    default_transactional_from: row?.defaultTransactionalFrom ?? null,
    bulk_api_enabled: row?.bulkApiEnabled ?? false,
  };
}

export async function getProviderConfig(db: Database, customerId: string): Promise<ProviderConfigView> {
  const [row] = await db.select().from(mailProviderConfigs).where(eq(mailProviderConfigs.customerId, customerId));
  return view(row);
}

/** Partial update; the server token is sealed before it touches the database. */
export async function setProviderConfig(
  db: Database,
  secrets: SecretBox,
  customerId: string,
  input: ProviderConfigInput,
  now: Date,
): Promise<ProviderConfigView> {
  const values = {
    ...(input.server_token !== undefined && { serverTokenSealed: secrets.seal(input.server_token) }),
    ...(input.transactional_stream !== undefined && { transactionalStream: input.transactional_stream }),
    ...(input.broadcast_stream !== undefined && { broadcastStream: input.broadcast_stream }),
    ...(input.verified_senders !== undefined && { verifiedSenders: input.verified_senders.map((s) => s.toLowerCase()) }),
    ...(input.verified_domains !== undefined && { verifiedDomains: input.verified_domains.map((d) => d.toLowerCase()) }),
    ...(input.default_newsletter_from !== undefined && { defaultNewsletterFrom: input.default_newsletter_from }),
    ...(input.default_transactional_from !== undefined && { defaultTransactionalFrom: input.default_transactional_from }),
    ...(input.bulk_api_enabled !== undefined && { bulkApiEnabled: input.bulk_api_enabled }),
    updatedAt: now,
  };
  await db
    .insert(mailProviderConfigs)
    .values({ customerId, ...values })
    .onConflictDoUpdate({ target: mailProviderConfigs.customerId, set: values });
  return getProviderConfig(db, customerId);
}

/** A sender is verified when its address is, or its domain is. */
export function senderIsVerified(email: string, config: { verifiedSenders: string[]; verifiedDomains: string[] }): boolean {
  const address = email.toLowerCase();
  const domain = address.slice(address.lastIndexOf("@") + 1);
  return config.verifiedSenders.includes(address) || config.verifiedDomains.includes(domain);
}

/**
 * The spec's precondition for sending: provider server, streams, verified senders and both footers.
 * Each item is green or red with what to do; the admin API shows the list and sends answer 403 naming
 * the red items.
 */
export async function readiness(db: Database, customerId: string): Promise<ReadinessItem[]> {
  return readinessOf(...(await readinessRows(db, customerId)));
}

type ConfigRow = typeof mailProviderConfigs.$inferSelect;
type FrameRow = Pick<typeof mailFrames.$inferSelect, "newsletterFooterMjml" | "transactionalFooterMjml">;

async function readinessRows(db: Database, customerId: string): Promise<[ConfigRow | undefined, FrameRow | undefined]> {
  const [[row], [frame]] = await Promise.all([
    db.select().from(mailProviderConfigs).where(eq(mailProviderConfigs.customerId, customerId)),
    db
      .select({ newsletterFooterMjml: mailFrames.newsletterFooterMjml, transactionalFooterMjml: mailFrames.transactionalFooterMjml })
      .from(mailFrames)
      .where(eq(mailFrames.customerId, customerId)),
  ]);
  return [row, frame];
}

function readinessOf(row: ConfigRow | undefined, frame: FrameRow | undefined): ReadinessItem[] {
  const config = view(row);
  const item = (name: ReadinessItem["item"], ok: boolean, message: string): ReadinessItem => ({
    item: name,
    status: ok ? "green" : "red",
    message: ok ? "ok" : message,
  });
  const newsletterFrom = config.default_newsletter_from;
  return [
    item("server_token", config.server_token_set, "Set the Postmark server token."),
    item("transactional_stream", Boolean(config.transactional_stream), "Set the transactional message stream id."),
    item("broadcast_stream", Boolean(config.broadcast_stream), "Set the broadcast message stream id."),
    item("verified_senders", config.verified_senders.length + config.verified_domains.length > 0, "Add at least one verified sender address or domain."),
    item(
      "default_newsletter_from",
      Boolean(newsletterFrom && senderIsVerified(newsletterFrom.email, { verifiedSenders: config.verified_senders, verifiedDomains: config.verified_domains })),
      "Set a default newsletter sender on a verified address or domain.",
    ),
    item("newsletter_footer", Boolean(frame?.newsletterFooterMjml), "Set the frame's newsletter footer (with the unsubscribe link)."),
    item("transactional_footer", Boolean(frame?.transactionalFooterMjml), "Set the frame's transactional footer."),
  ];
}

/**
 * Whether the account can send, as a result rather than an exception: the batch worker and reconciliation
 * pause or wait on `ready: false`, request paths turn it into a 403 with `notReadyError`.
 */
export type ProviderReadiness = { ready: true; credentials: ProviderCredentials } | { ready: false; missing: ReadinessItem["item"][] };

export async function providerReadiness(db: Database, secrets: SecretBox, customerId: string): Promise<ProviderReadiness> {
  const [row, frame] = await readinessRows(db, customerId);
  const missing = readinessOf(row, frame)
    .filter((i) => i.status === "red")
    .map((i) => i.item);
  if (missing.length > 0 || !row?.serverTokenSealed || !row.transactionalStream || !row.broadcastStream) return { ready: false, missing };
  return {
    ready: true,
    credentials: {
      serverToken: secrets.open(row.serverTokenSealed),
      transactionalStream: row.transactionalStream,
      broadcastStream: row.broadcastStream,
      verifiedSenders: row.verifiedSenders,
      verifiedDomains: row.verifiedDomains,
      defaultNewsletterFrom: row.defaultNewsletterFrom ?? null,
      defaultTransactionalFrom: row.defaultTransactionalFrom ?? null,
      bulkApiEnabled: row.bulkApiEnabled,
    },
  };
}

/** The 403 a send answers while readiness items are red, naming every one of them. */
export function notReadyError(missing: readonly string[]): ForbiddenError {
  return new ForbiddenError("Sending is not set up for this account yet; an administrator must complete the items in details.missing.", {
    missing: [...missing],
  });
}
