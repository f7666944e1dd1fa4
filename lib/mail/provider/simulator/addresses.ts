import emailAddresses from "email-addresses";

/**
 * Postmark's own address rules (support article 1180 "What does Error Code 300 mean"): the mailbox must
 * match `^[a-z0-9\.!#\$%&'`\*\+\-\/=\^_\{\}\|~]+$` and the domain `^((\.)?[a-zA-Z0-9\-])+$`. Checking the
 * same patterns makes the simulator refuse what Postmark refuses, no more and no less strict.
 */
const MAILBOX = /^[a-z0-9.!#$%&'`*+\-/=^_{}|~]+$/i;
const DOMAIN = /^(\.?[a-z0-9-])+$/i;
/** A list without display names, quotes or comments: the common case, parsed without the RFC 5322 parser. */
const PLAIN_LIST = /^[^<>"()\\]*$/;

function isPostmarkAddress(address: string): boolean {
  const at = address.lastIndexOf("@");
  return at > 0 && MAILBOX.test(address.slice(0, at)) && DOMAIN.test(address.slice(at + 1));
}

/**
 * The RFC 5322 parser costs ~20 µs per call, too much for 100,000 recipients, so it only sees lists with
 * display names (`"Brand" <news@brand.com>`). Those are nearly always the same few From values, hence the
 * small cache.
 */
const displayNameCache = new Map<string, string[] | null>();
const DISPLAY_NAME_CACHE_SIZE = 256;

function parseWithDisplayNames(value: string): string[] | null {
  const cached = displayNameCache.get(value);
  if (cached !== undefined) return cached;
  const parsed = emailAddresses.parseAddressList({ input: value, rfc6532: true });
  const addresses = parsed?.flatMap((entry) => (entry.type === "group" ? entry.addresses : [entry])).map((mailbox) => mailbox.address) ?? null;
  const result = addresses && addresses.length > 0 && addresses.every(isPostmarkAddress) ? addresses : null;
  if (displayNameCache.size >= DISPLAY_NAME_CACHE_SIZE) displayNameCache.clear();
  displayNameCache.set(value, result);
  return result;
}

/**
 * Parses a Postmark recipient field (comma-separated, display names allowed). Returns the bare addresses,
 * `[]` for an empty field, or null when any entry is not an address Postmark accepts.
 */
export function parseAddressList(value: string): string[] | null {
  if (value.trim() === "") return [];
  if (!PLAIN_LIST.test(value)) return parseWithDisplayNames(value);
  const addresses = value.split(",").map((part) => part.trim());
  return addresses.every(isPostmarkAddress) ? addresses : null;
}

/** The single sender address of a `From` value, or null. */
export function parseSenderAddress(value: string): string | null {
  const addresses = parseAddressList(value);
  return addresses && addresses.length === 1 ? addresses[0] : null;
}

/**
 * The display names of a recipient field by lower-cased address (the Messages API lists `To`/`Cc`/`Bcc` as
 * `{ Email, Name }`); an address without one is absent. Only called for a message listing, never per send.
 */
export function displayNames(value: string): Map<string, string> {
  const names = new Map<string, string>();
  if (!value.includes("<")) return names;
  for (const entry of emailAddresses.parseAddressList(value) ?? []) {
    const mailboxes = entry.type === "group" ? entry.addresses : [entry];
    for (const mailbox of mailboxes) if (mailbox.name) names.set(mailbox.address.toLowerCase(), mailbox.name);
  }
  return names;
}
