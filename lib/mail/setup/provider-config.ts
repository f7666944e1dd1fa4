import { eq } from "drizzle-orm";
import type { Database } from "../../db/client";
import { mailFrames, mailProviderConfigs, type SenderRecord } from "../../db/schema";
import { ForbiddenError } from "../../core/errors";
import type { SecretBox } from "../../core/secrets";
import type { MailProviderConfigResponse, MailReadinessResponse } from "./provider-config-schema";
import { confirmedAtPostmark, senderConfirmations, type SenderConfirmations } from "./sender-checks";

export type ProviderConfigInput = {
  server_token?: string;
  account_token?: string;
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
    account_token_set: Boolean(row?.accountTokenSealed),
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
    ...(input.account_token !== undefined && { accountTokenSealed: secrets.seal(input.account_token) }),
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
export async function readiness(db: Database, customerId: string, reputation: ReputationWarning | null = null): Promise<ReadinessItem[]> {
  return readinessOf(await readinessRows(db, customerId), reputation);
}

/** The customer's 30-day newsletter complaint rate against its threshold (./reputation.ts), for the warning. */
export type ReputationWarning = { complaintRate: number; threshold: number; outcomes: number };

type ConfigRow = typeof mailProviderConfigs.$inferSelect;
type FrameRow = Pick<typeof mailFrames.$inferSelect, "newsletterFooterMjml" | "transactionalFooterMjml">;

type ReadinessRows = { row: ConfigRow | undefined; frame: FrameRow | undefined; checks: SenderConfirmations };

async function readinessRows(db: Database, customerId: string): Promise<ReadinessRows> {
  const [[row], [frame]] = await Promise.all([
    db.select().from(mailProviderConfigs).where(eq(mailProviderConfigs.customerId, customerId)),
    db
      .select({ newsletterFooterMjml: mailFrames.newsletterFooterMjml, transactionalFooterMjml: mailFrames.transactionalFooterMjml })
      .from(mailFrames)
      .where(eq(mailFrames.customerId, customerId)),
  ]);
  return { row, frame, checks: await senderConfirmations(db, customerId, Boolean(row?.accountTokenSealed)) };
}

/**
 * The items. With an account token and an answered check, senders count only when Postmark confirms them
 * (./sender-checks.ts); without one the operator's lists count as before and `postmark_check` warns that
 * nothing was checked. Return-Path and the complaint rate are warnings: they put deliverability at risk but
 * Postmark sends all the same. DMARC is no item: Postmark's Account API does not report it, so a warning could
 * never clear; the recommended record is listed with the domain's DNS records instead (docs/adr/0050).
 */
function readinessOf({ row, frame, checks }: ReadinessRows, reputation: ReputationWarning | null): ReadinessItem[] {
  const config = view(row);
  const item = (name: ReadinessItem["item"], ok: boolean, message: string): ReadinessItem => ({
    item: name,
    status: ok ? "green" : "red",
    message: ok ? "ok" : message,
  });
  const warning = (name: ReadinessItem["item"], ok: boolean, message: string): ReadinessItem => ({
    item: name,
    status: ok ? "green" : "warning",
    message: ok ? "ok" : message,
  });
  const lists = { verifiedSenders: config.verified_senders, verifiedDomains: config.verified_domains };
  // Postmark's word counts once it has answered at least once; until then (or without a token) the lists do.
  const checked = checks.accountTokenSet && checks.rows.length > 0;
  const confirmed = (email: string) => (checked ? confirmedAtPostmark(checks.rows, email) : senderIsVerified(email, lists));
  const newsletterFrom = config.default_newsletter_from;
  const listed = [...config.verified_senders, ...config.verified_domains];
  const unconfirmed = checked
    ? checks.rows.filter((r) => !r.confirmed && (r.kind === "domain" ? lists.verifiedDomains : lists.verifiedSenders).includes(r.name))
    : [];
  const newsletterDomain = newsletterFrom ? newsletterFrom.email.slice(newsletterFrom.email.lastIndexOf("@") + 1).toLowerCase() : null;
  const domainRow = checks.rows.find((r) => r.kind === "domain" && r.name === newsletterDomain);
  const publish = (purpose: string) =>
    (domainRow?.dnsRecords ?? [])
      .filter((r) => r.purpose === purpose)
      .map((r) => `${r.type} ${r.host} = ${r.value}`)
      .join("; ");
  return [
    item("server_token", config.server_token_set, "Set the Postmark server token."),
    item("transactional_stream", Boolean(config.transactional_stream), "Set the transactional message stream id."),
    item("broadcast_stream", Boolean(config.broadcast_stream), "Set the broadcast message stream id."),
    item(
      "verified_senders",
      listed.length > 0 && (!checked || unconfirmed.length < listed.length),
      listed.length === 0
        ? "Add at least one verified sender address or domain."
        : `Postmark has not confirmed any of the listed senders (${unconfirmed.map((r) => r.name).join(", ")}): confirm the sender signature or publish the domain's DKIM record, then check again.`,
    ),
    item(
      "default_newsletter_from",
      Boolean(newsletterFrom && confirmed(newsletterFrom.email)),
      checked && newsletterFrom
        ? `Postmark has not confirmed ${newsletterFrom.email}: confirm its sender signature or verify DKIM for its domain (${publish("dkim") || "add the domain at Postmark"}), then check again.`
        : "Set a default newsletter sender on a verified address or domain.",
    ),
    item("newsletter_footer", Boolean(frame?.newsletterFooterMjml), "Set the frame's newsletter footer (with the unsubscribe link)."),
    item("transactional_footer", Boolean(frame?.transactionalFooterMjml), "Set the frame's transactional footer."),
    warning(
      "postmark_check",
      checked && !checks.run?.error,
      !checks.accountTokenSet
        ? "Not checked with Postmark: set the Postmark account token so senders and domains are confirmed by Postmark rather than by the lists typed here."
        : !checked
          ? `Not yet checked with Postmark${checks.run?.error ? ` (${checks.run.error})` : ""}: run "check again".`
          : `The last check could not reach Postmark (${checks.run?.error}); the result of ${checks.rows[0]?.checkedAt.toISOString()} is shown.`,
    ),
    warning(
      "return_path",
      !checked || !domainRow || domainRow.returnPathVerified === true,
      `The Return-Path of ${newsletterDomain} is not verified at Postmark: publish ${publish("return_path") || "the Return-Path CNAME Postmark shows"}, then check again.`,
    ),
    warning(
      "complaint_rate",
      reputation === null || reputation.complaintRate <= reputation.threshold,
      reputation
        ? `Spam complaints on newsletters in the last 30 days are ${(reputation.complaintRate * 100).toFixed(3)} % of ${reputation.outcomes} delivered or bounced, above the ${(reputation.threshold * 100).toFixed(3)} % threshold: review how the customer's list was gathered.`
        : "ok",
    ),
  ];
}

/**
 * Whether the account can send, as a result rather than an exception: the batch worker and reconciliation
 * pause or wait on `ready: false`, request paths turn it into a 403 with `notReadyError`.
 */
export type ProviderReadiness = { ready: true; credentials: ProviderCredentials } | { ready: false; missing: ReadinessItem["item"][] };

export async function providerReadiness(db: Database, secrets: SecretBox, customerId: string): Promise<ProviderReadiness> {
  const rows = await readinessRows(db, customerId);
  const { row } = rows;
  const missing = readinessOf(rows, null)
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
