import { eq, isNotNull } from "drizzle-orm";
import type { Models } from "postmark";
import type { CoreDeps } from "../../core/context";
import type { Database } from "../../db/client";
import { type DnsRecord, mailProviderConfigs, mailSenderCheckRuns, mailSenderChecks } from "../../db/schema";
import type { PostmarkAccount } from "../provider/postmark-account";
import type { SenderChecksResponse } from "./sender-checks-schema";

/*
 * What Postmark says about a customer's senders, read with the operator's account token through the Account
 * API (../provider/postmark-account.ts) and kept in `mail_sender_checks`, so readiness (checked before every
 * batch) never waits for Postmark. Checked on demand ("check again" also calls Postmark's verify endpoints),
 * right after the provider configuration changes, and hourly by the `mail-sender-checks` cron. A check that
 * cannot reach Postmark records its error and keeps the previous rows: readiness goes on from the last
 * answer rather than turning every customer red while Postmark's API is down.
 *
 * Checked names: the configured verified sender addresses and domains, the default senders' addresses,
 * and the domains of all of these. A sender is confirmed when its sender signature is `Confirmed` or its
 * domain is `DKIMVerified` (Postmark lets either authorise a From address).
 */

export type SenderCheckDeps = Pick<CoreDeps, "db" | "clock" | "secrets" | "logger"> & { postmarkAccount: PostmarkAccount };

type ConfigRow = typeof mailProviderConfigs.$inferSelect;
type CheckRow = typeof mailSenderChecks.$inferSelect;
type RunRow = typeof mailSenderCheckRuns.$inferSelect;

const domainOf = (email: string) => email.slice(email.lastIndexOf("@") + 1).toLowerCase();

/** The addresses and domains a customer's configuration names, lower-case, without repeats. */
function checkedNames(config: Pick<ConfigRow, "verifiedSenders" | "verifiedDomains" | "defaultNewsletterFrom" | "defaultTransactionalFrom">): {
  senders: string[];
  domains: string[];
} {
  const senders = new Set(config.verifiedSenders.map((s) => s.toLowerCase()));
  for (const from of [config.defaultNewsletterFrom, config.defaultTransactionalFrom]) if (from) senders.add(from.email.toLowerCase());
  const domains = new Set(config.verifiedDomains.map((d) => d.toLowerCase()));
  for (const sender of senders) domains.add(domainOf(sender));
  return { senders: [...senders], domains: [...domains] };
}

/**
 * The DMARC record we recommend. Postmark's Domains API reports SPF, DKIM and Return-Path but not DMARC, so
 * it is listed for every domain as a record to make sure of, never as verified (docs/provider-facts.md).
 */
function dmarcRecord(domain: string): DnsRecord {
  return { purpose: "dmarc", host: `_dmarc.${domain}`, type: "TXT", value: `v=DMARC1; p=none; rua=mailto:dmarc-reports@${domain}` };
}

function domainRecords(name: string, details: Models.DomainDetails | undefined): DnsRecord[] {
  if (!details) return [dmarcRecord(name)];
  const records: DnsRecord[] = [];
  if (!details.DKIMVerified) {
    const host = details.DKIMPendingHost || details.DKIMHost;
    const value = details.DKIMPendingTextValue || details.DKIMTextValue;
    if (host && value) records.push({ purpose: "dkim", host, type: "TXT", value });
  }
  if (!details.ReturnPathDomainVerified && details.ReturnPathDomain && details.ReturnPathDomainCNAMEValue) {
    records.push({ purpose: "return_path", host: details.ReturnPathDomain, type: "CNAME", value: details.ReturnPathDomainCNAMEValue });
  }
  records.push(dmarcRecord(name));
  return records;
}

function rowsOf(customerId: string, config: ConfigRow, snapshot: { domains: Models.DomainDetails[]; signatures: Models.Signature[] }, now: Date) {
  const { senders, domains } = checkedNames(config);
  const detailsByName = new Map(snapshot.domains.map((d) => [d.Name.toLowerCase(), d]));
  const signatureByEmail = new Map(snapshot.signatures.map((s) => [s.EmailAddress.toLowerCase(), s]));
  const rows: (typeof mailSenderChecks.$inferInsert)[] = [];
  for (const name of domains) {
    const details = detailsByName.get(name);
    rows.push({
      customerId,
      kind: "domain",
      name,
      postmarkId: details?.ID ?? null,
      foundAtPostmark: details !== undefined,
      confirmed: details?.DKIMVerified ?? false,
      returnPathVerified: details?.ReturnPathDomainVerified ?? false,
      spfVerified: details?.SPFVerified ?? false,
      dnsRecords: domainRecords(name, details),
      checkedAt: now,
    });
  }
  for (const name of senders) {
    const signature = signatureByEmail.get(name);
    rows.push({
      customerId,
      kind: "sender",
      name,
      postmarkId: signature?.ID ?? null,
      foundAtPostmark: signature !== undefined,
      confirmed: signature?.Confirmed ?? false,
      returnPathVerified: null,
      spfVerified: null,
      dnsRecords: [],
      checkedAt: now,
    });
  }
  return rows;
}

/**
 * Reads (with `verify`: first re-verifies the domains at) Postmark and stores the result. Without an
 * account token nothing is asked. Returns the operator's view afterwards.
 */
export async function checkSenders(deps: SenderCheckDeps, customerId: string, options: { verify: boolean }): Promise<SenderChecksResponse> {
  const { db } = deps;
  const [config] = await db.select().from(mailProviderConfigs).where(eq(mailProviderConfigs.customerId, customerId));
  if (!config?.accountTokenSealed) return senderChecksView(db, customerId);
  const token = deps.secrets.open(config.accountTokenSealed);
  const { domains } = checkedNames(config);
  const outcome = options.verify ? await deps.postmarkAccount.verify(token, domains) : await deps.postmarkAccount.read(token, domains);
  const now = deps.clock.now();
  if (outcome.kind === "unavailable") {
    deps.logger.warn("sender check: Postmark's Account API could not be read; the previous result stays", { customer_id: customerId, error: outcome.message });
    await db
      .insert(mailSenderCheckRuns)
      .values({ customerId, checkedAt: now, error: outcome.message })
      .onConflictDoUpdate({ target: mailSenderCheckRuns.customerId, set: { checkedAt: now, error: outcome.message } });
    return senderChecksView(db, customerId);
  }
  const rows = rowsOf(customerId, config, outcome.snapshot, now);
  await db.transaction(async (tx) => {
    await tx.delete(mailSenderChecks).where(eq(mailSenderChecks.customerId, customerId));
    if (rows.length > 0) await tx.insert(mailSenderChecks).values(rows);
    await tx
      .insert(mailSenderCheckRuns)
      .values({ customerId, checkedAt: now, error: null })
      .onConflictDoUpdate({ target: mailSenderCheckRuns.customerId, set: { checkedAt: now, error: null } });
  });
  return senderChecksView(db, customerId);
}

/** The hourly cron: every customer with an account token, one after another (a few Account API calls each). */
export async function checkAllSenders(deps: SenderCheckDeps): Promise<{ checked: number; failed: number }> {
  const customers = await deps.db
    .select({ customerId: mailProviderConfigs.customerId })
    .from(mailProviderConfigs)
    .where(isNotNull(mailProviderConfigs.accountTokenSealed));
  let failed = 0;
  for (const { customerId } of customers) {
    const view = await checkSenders(deps, customerId, { verify: false });
    if (view.error) failed += 1;
  }
  return { checked: customers.length, failed };
}

/** What readiness needs of the last check: whether there was one with an answer, and its rows. */
export type SenderConfirmations = { accountTokenSet: boolean; run: RunRow | null; rows: CheckRow[] };

export async function senderConfirmations(db: Database, customerId: string, accountTokenSet: boolean): Promise<SenderConfirmations> {
  if (!accountTokenSet) return { accountTokenSet, run: null, rows: [] };
  const [[run], rows] = await Promise.all([
    db.select().from(mailSenderCheckRuns).where(eq(mailSenderCheckRuns.customerId, customerId)),
    db.select().from(mailSenderChecks).where(eq(mailSenderChecks.customerId, customerId)),
  ]);
  return { accountTokenSet, run: run ?? null, rows };
}

/** Whether Postmark confirmed `email`: its sender signature is confirmed, or its domain has DKIM verified. */
export function confirmedAtPostmark(rows: readonly CheckRow[], email: string): boolean {
  const address = email.toLowerCase();
  const domain = domainOf(address);
  return rows.some((r) => r.confirmed && ((r.kind === "sender" && r.name === address) || (r.kind === "domain" && r.name === domain)));
}

export async function senderChecksView(db: Database, customerId: string): Promise<SenderChecksResponse> {
  const [config] = await db
    .select({ sealed: mailProviderConfigs.accountTokenSealed })
    .from(mailProviderConfigs)
    .where(eq(mailProviderConfigs.customerId, customerId));
  const { run, rows } = await senderConfirmations(db, customerId, Boolean(config?.sealed));
  return {
    account_token_set: Boolean(config?.sealed),
    checked_at: run?.checkedAt.toISOString() ?? null,
    error: run?.error ?? null,
    senders: rows
      .filter((r) => r.kind === "sender")
      .map((r) => ({
        email: r.name,
        found_at_postmark: r.foundAtPostmark,
        signature_confirmed: r.confirmed,
        confirmed: confirmedAtPostmark(rows, r.name),
        checked_at: r.checkedAt.toISOString(),
      })),
    domains: rows
      .filter((r) => r.kind === "domain")
      .map((r) => ({
        domain: r.name,
        found_at_postmark: r.foundAtPostmark,
        dkim_verified: r.confirmed,
        return_path_verified: r.returnPathVerified ?? false,
        spf_verified: r.spfVerified ?? false,
        dns_records: r.dnsRecords.map(({ purpose, host, type, value }) => ({ purpose, host, type, value })),
        checked_at: r.checkedAt.toISOString(),
      })),
  };
}
