import type { Models } from "postmark";
import { loadPostmark } from "./postmark";

/**
 * Postmark's Account API (Domains and Sender Signatures) through the official client's `AccountClient`:
 * `getDomains`, `getDomain`, `getSenderSignatures`, `verifyDomainDKIM`, `verifyDomainReturnPath`. Every
 * answer becomes an outcome; nothing throws for a provider answer. The account token is the operator's,
 * opened from its sealed form only for the call.
 */
/** The account's sender signatures, and the details of the domains asked for that the account has. */
type AccountSnapshot = { domains: Models.DomainDetails[]; signatures: Models.Signature[] };

type AccountOutcome = { kind: "answered"; snapshot: AccountSnapshot } | { kind: "unavailable"; message: string };

export type PostmarkAccount = {
  /** Every sender signature of the account, and the DNS details of those of `domains` the account has. */
  read(accountToken: string, domains: readonly string[]): Promise<AccountOutcome>;
  /**
   * First asks Postmark to look up the DKIM and Return-Path records of `domains` again (its verify endpoints),
   * then reads as `read` does.
   */
  verify(accountToken: string, domains: readonly string[]): Promise<AccountOutcome>;
};

/** Postmark's page size maximum for both listings. */
const PAGE = 500;

export function createPostmarkAccount(options: { apiUrl: string; timeoutSeconds?: number }): PostmarkAccount {
  const url = new URL(options.apiUrl);
  const clientOptions = { useHttps: url.protocol === "https:", requestHost: url.host, timeout: options.timeoutSeconds ?? 20 };
  const client = async (token: string) => new (await loadPostmark()).AccountClient(token, clientOptions);

  async function unavailable(error: unknown): Promise<AccountOutcome> {
    const Errors = (await loadPostmark().catch(() => undefined))?.Errors;
    const message =
      Errors && error instanceof Errors.PostmarkError
        ? `Postmark answered ${error.statusCode}: ${error.message}`
        : error instanceof Error
          ? error.message
          : "No answer from Postmark.";
    return { kind: "unavailable", message };
  }

  async function domainSummaries(account: Awaited<ReturnType<typeof client>>): Promise<Models.Domain[]> {
    const summaries: Models.Domain[] = [];
    for (let offset = 0; ; offset += PAGE) {
      const page = await account.getDomains({ count: PAGE, offset });
      summaries.push(...page.Domains);
      if (page.Domains.length < PAGE || summaries.length >= page.TotalCount) break;
    }
    return summaries;
  }

  async function readAll(account: Awaited<ReturnType<typeof client>>, wanted: readonly string[], verify: boolean): Promise<AccountSnapshot> {
    const names = new Set(wanted.map((d) => d.toLowerCase()));
    const summaries = (await domainSummaries(account)).filter((d) => names.has(d.Name.toLowerCase()));
    if (verify) {
      for (const domain of summaries) {
        await account.verifyDomainDKIM(domain.ID);
        await account.verifyDomainReturnPath(domain.ID);
      }
    }
    const signatures: Models.Signature[] = [];
    for (let offset = 0; ; offset += PAGE) {
      const page = await account.getSenderSignatures({ count: PAGE, offset });
      signatures.push(...page.SenderSignatures);
      if (page.SenderSignatures.length < PAGE || signatures.length >= page.TotalCount) break;
    }
    const domains = await Promise.all(summaries.map((d) => account.getDomain(d.ID)));
    return { domains, signatures };
  }

  return {
    async read(accountToken, domains) {
      try {
        return { kind: "answered", snapshot: await readAll(await client(accountToken), domains, false) };
      } catch (error) {
        return unavailable(error);
      }
    },
    async verify(accountToken, domains) {
      try {
        return { kind: "answered", snapshot: await readAll(await client(accountToken), domains, true) };
      } catch (error) {
        return unavailable(error);
      }
    },
  };
}
