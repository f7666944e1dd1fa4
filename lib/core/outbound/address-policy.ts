import ipaddr from "ipaddr.js";

/**
 * Which IP addresses outbound requests to customer-supplied URLs may reach: public unicast only.
 * ipaddr.js names the special ranges; this file decides which names are acceptable, so the rule lives
 * in one place and is tested as a table.
 */

export type AddressPolicy = {
  /** Test-only: 127.0.0.0/8 and ::1 (also as `::ffff:127.x.y.z`) become reachable. Nothing else does. */
  allowLoopback: boolean;
};

/** An address that passed the policy, in the canonical form we hand to the socket. */
export type CheckedAddress = { address: string; family: 4 | 6 };

export type AddressVerdict = ({ allowed: true } & CheckedAddress) | { allowed: false; range: string };

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

/**
 * IANA's global unicast allocation. ipaddr.js calls everything it has no name for `unicast`, which
 * includes leftovers such as the deprecated IPv4-compatible `::a.b.c.d` form; requiring 2000::/3 keeps
 * those out without listing them.
 */
const globalUnicastV6 = ipaddr.parseCIDR("2000::/3");
/** The NAT64 well-known prefix embeds an IPv4 address in its last 32 bits (RFC 6052). */
const nat64WellKnown = ipaddr.parseCIDR("64:ff9b::/96");

function v4FromParts(high: number, low: number): IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/**
 * IPv6 forms that carry an IPv4 destination inside them; a translator or relay on the path may deliver
 * to that IPv4 address, so it must pass the IPv4 rule too. Teredo is absent on purpose: it is blocked
 * outright (its client address is obfuscated and no legitimate endpoint needs it).
 */
function embeddedV4(ip: IPv6, range: string): IPv4 | null {
  const parts = ip.parts;
  if (range === "6to4") return v4FromParts(parts[1], parts[2]);
  if (range === "rfc6145") return v4FromParts(parts[6], parts[7]);
  if (range === "rfc6052" && ip.match(nat64WellKnown)) return v4FromParts(parts[6], parts[7]);
  return null;
}

function checkV4(ip: IPv4, policy: AddressPolicy): AddressVerdict {
  const range = ip.range();
  if (range === "unicast" || (range === "loopback" && policy.allowLoopback)) {
    return { allowed: true, address: ip.toString(), family: 4 };
  }
  return { allowed: false, range };
}

function checkV6(ip: IPv6, policy: AddressPolicy): AddressVerdict {
  const range = ip.range();
  if (range === "loopback") {
    return policy.allowLoopback ? { allowed: true, address: ip.toString(), family: 6 } : { allowed: false, range };
  }
  const embedded = embeddedV4(ip, range);
  if (embedded) {
    // The embedded address must be public in its own right; the loopback allowance does not extend to it.
    const inner = checkV4(embedded, { allowLoopback: false });
    return inner.allowed ? { allowed: true, address: ip.toString(), family: 6 } : { allowed: false, range: `${range}:${inner.range}` };
  }
  if (range !== "unicast") return { allowed: false, range };
  if (!ip.match(globalUnicastV6)) return { allowed: false, range: "reserved" };
  return { allowed: true, address: ip.toString(), family: 6 };
}

/**
 * Classifies one address (as written in a URL host or returned by a resolver). IPv4-mapped IPv6
 * (`::ffff:127.0.0.1`) is unwrapped first, and the socket then receives the plain IPv4 form, so the
 * address that was checked is byte for byte the address that is dialled.
 */
export function checkAddress(address: string, policy: AddressPolicy): AddressVerdict {
  // ipaddr.js reads IPv4 the way inet_aton does (`0x7f.1`, `2130706433`); dialling `toString()` afterwards
  // means the socket never re-interprets a form differently from how it was checked.
  if (!ipaddr.isValid(address)) return { allowed: false, range: "invalid" };
  const ip = ipaddr.parse(address);
  if (ip instanceof ipaddr.IPv4) return checkV4(ip, policy);
  // A zone id only means something for link-local scopes, which are refused anyway.
  if (ip.zoneId) return { allowed: false, range: "zoned" };
  return ip.isIPv4MappedAddress() ? checkV4(ip.toIPv4Address(), policy) : checkV6(ip, policy);
}
