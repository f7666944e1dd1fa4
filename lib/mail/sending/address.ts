import emailAddresses from "email-addresses";
import { sha256Hex } from "../../core/secrets";
import { normaliseAddress } from "../suppressions/mirror";

export type ParsedRecipient = { address: string; name: string | null };

/**
 * RFC 5322 parsing with `email-addresses`: a single mailbox (`jane@example.com` or
 * `Jane <jane@example.com>`) whose domain has a dot; groups, lists and bare local parts are invalid.
 */
export function parseRecipient(input: string): ParsedRecipient | null {
  const parsed = emailAddresses.parseOneAddress({ input: input.trim(), rejectTLD: true });
  if (parsed?.type !== "mailbox") return null;
  if (!parsed.domain.includes(".") || parsed.address.length > 254) return null;
  return { address: parsed.address, name: parsed.name };
}

/** What stays of an address after a job: its SHA-256 over the normalised form. */
export function recipientHash(address: string): string {
  return sha256Hex(normaliseAddress(address));
}

/** `Name <address>` for Postmark's From/To with the name quoted when it needs to be. */
export function formatMailbox(address: string, name: string | null | undefined): string {
  if (!name) return address;
  const safe = name.replace(/[\r\n]/g, " ");
  return /^[\w .'-]+$/.test(safe) ? `${safe} <${address}>` : `"${safe.replace(/["\\]/g, "\\$&")}" <${address}>`;
}

/** Replaced for the recipient's address in the stored body (as written, and URL-encoded in links). */
export const RECIPIENT_MARK = "[recipient address]";

/** The body as stored: the recipient's address (any case, plain or URL-encoded) replaced. */
export function withoutRecipient(html: string, address: string): string {
  const forms = [...new Set([address, encodeURIComponent(address)])].map((form) => form.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return html.replace(new RegExp(forms.join("|"), "gi"), RECIPIENT_MARK);
}
