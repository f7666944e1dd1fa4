import ipaddr from "ipaddr.js";
import { safeEqual } from "../../core/secrets";

/**
 * Postmark does not sign webhooks (PROVIDER-FACTS P1): the receiver authenticates with the HTTP Basic
 * credentials written into the webhook URL (each customer's own, `receiver-credentials.ts`), and
 * optionally checks an IP allow-list. Postmark's origin IP can change between attempts, so the list is a
 * second check, never the only one.
 */
export type ReceiverCredentials = { username: string; password: string };

/** Both parts are always compared, each in constant time, so timing tells nothing about which was wrong. */
export function basicAuthMatches(header: string | undefined, expected: ReceiverCredentials): boolean {
  const encoded = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? "")?.[1];
  const decoded = encoded ? Buffer.from(encoded, "base64").toString("utf8") : "";
  const separator = decoded.indexOf(":");
  const username = separator >= 0 ? decoded.slice(0, separator) : "";
  const password = separator >= 0 ? decoded.slice(separator + 1) : "";
  const userOk = safeEqual(username, expected.username);
  const passwordOk = safeEqual(password, expected.password);
  return separator >= 0 && userOk && passwordOk;
}

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** IPv4-mapped IPv6 (`::ffff:1.2.3.4`, what a dual-stack socket reports) is compared as IPv4. */
function normalise(ip: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  return ip.kind() === "ipv6" && (ip as ipaddr.IPv6).isIPv4MappedAddress() ? (ip as ipaddr.IPv6).toIPv4Address() : ip;
}

/**
 * `POSTMARK_WEBHOOK_ALLOWED_IPS`: comma-separated addresses or CIDR ranges. Unset or empty = no IP check.
 * An entry that is neither is a configuration error, reported with the variable's name.
 */
export function parseAllowList(value: string | undefined): Range[] | null {
  const entries = (value ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0) return null;
  return entries.map((entry): Range => {
    if (entry.includes("/")) {
      if (!ipaddr.isValidCIDR(entry)) throw new Error(`POSTMARK_WEBHOOK_ALLOWED_IPS: "${entry}" is not an address or CIDR range`);
      const [ip, bits] = ipaddr.parseCIDR(entry);
      const mapped = normalise(ip);
      return [mapped, mapped === ip ? bits : Math.max(0, bits - 96)];
    }
    if (!ipaddr.isValid(entry)) throw new Error(`POSTMARK_WEBHOOK_ALLOWED_IPS: "${entry}" is not an address or CIDR range`);
    const ip = normalise(ipaddr.parse(entry));
    return [ip, ip.kind() === "ipv4" ? 32 : 128];
  });
}

export function ipAllowed(list: Range[], address: string | null): boolean {
  if (!address || !ipaddr.isValid(address)) return false;
  const ip = normalise(ipaddr.parse(address));
  return list.some(([range, bits]) => range.kind() === ip.kind() && ip.match(range, bits));
}
