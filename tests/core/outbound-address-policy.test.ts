import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkAddress } from "../../lib/core/outbound/address-policy";

const strict = { allowLoopback: false };
const loopbackAllowed = { allowLoopback: true };

describe("checkAddress", () => {
  it.each([
    ["8.8.8.8", "8.8.8.8", 4],
    ["1.1.1.1", "1.1.1.1", 4],
    ["93.184.216.34", "93.184.216.34", 4],
    ["2606:4700:4700::1111", "2606:4700:4700::1111", 6],
    // IPv4-mapped is unwrapped and dialled as plain IPv4.
    ["::ffff:8.8.8.8", "8.8.8.8", 4],
    // 6to4 and NAT64 carrying a public IPv4 address stay usable.
    ["2002:808:808::1", "2002:808:808::1", 6],
    ["64:ff9b::808:808", "64:ff9b::808:808", 6],
  ] as const)("allows public %s (dialled as %s)", (address, dialled, family) => {
    expect(checkAddress(address, strict)).toEqual({ allowed: true, address: dialled, family });
  });

  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["::1", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["0x7f.1", "loopback"],
    ["2130706433", "loopback"],
    ["10.0.0.5", "private"],
    ["172.16.0.1", "private"],
    ["192.168.1.1", "private"],
    ["::ffff:10.0.0.1", "private"],
    ["169.254.169.254", "linkLocal"],
    ["fe80::1", "linkLocal"],
    ["fe80::1%eth0", "zoned"],
    ["fd00::1", "uniqueLocal"],
    ["fc00::1", "uniqueLocal"],
    ["100.64.0.1", "carrierGradeNat"],
    ["0.0.0.0", "unspecified"],
    ["::", "unspecified"],
    ["255.255.255.255", "broadcast"],
    ["224.0.0.1", "multicast"],
    ["ff02::1", "multicast"],
    ["192.0.2.1", "reserved"],
    ["198.18.0.1", "reserved"],
    ["240.0.0.1", "reserved"],
    ["2001:db8::1", "reserved"],
    // Deprecated IPv4-compatible form: ipaddr.js calls it unicast, it is outside 2000::/3.
    ["::7f00:1", "reserved"],
    ["2002:a00:1::1", "6to4:private"],
    ["2002:7f00:1::1", "6to4:loopback"],
    ["64:ff9b::a9fe:a9fe", "rfc6052:linkLocal"],
    ["64:ff9b:1::a00:1", "rfc6052"],
    ["::ffff:0:a00:1", "rfc6145:private"],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "teredo"],
    ["not-an-ip", "invalid"],
    ["", "invalid"],
  ])("blocks %s (%s)", (address, range) => {
    expect(checkAddress(address, strict)).toEqual({ allowed: false, range });
  });

  it("opens loopback and nothing else when the test allowance is on", () => {
    expect(checkAddress("127.0.0.1", loopbackAllowed)).toEqual({ allowed: true, address: "127.0.0.1", family: 4 });
    expect(checkAddress("::1", loopbackAllowed)).toEqual({ allowed: true, address: "::1", family: 6 });
    expect(checkAddress("::ffff:127.0.0.1", loopbackAllowed)).toEqual({ allowed: true, address: "127.0.0.1", family: 4 });
    for (const address of ["10.0.0.5", "169.254.169.254", "fd00::1", "0.0.0.0", "::", "2002:7f00:1::1", "100.64.0.1"]) {
      expect(checkAddress(address, loopbackAllowed), address).toMatchObject({ allowed: false });
    }
  });

  it("judges an IPv4 address and its IPv4-mapped IPv6 form alike", () => {
    fc.assert(
      fc.property(fc.ipV4(), fc.boolean(), (v4, allowLoopback) => {
        const policy = { allowLoopback };
        expect(checkAddress(`::ffff:${v4}`, policy)).toEqual(checkAddress(v4, policy));
      }),
    );
  });

  it("never allows an address in a private, loopback or link-local IPv4 block", () => {
    const octet = fc.integer({ min: 0, max: 255 });
    const blocked = fc.oneof(
      fc.tuple(octet, octet, octet).map(([b, c, d]) => `10.${b}.${c}.${d}`),
      fc.tuple(fc.integer({ min: 16, max: 31 }), octet, octet).map(([b, c, d]) => `172.${b}.${c}.${d}`),
      fc.tuple(octet, octet).map(([c, d]) => `192.168.${c}.${d}`),
      fc.tuple(octet, octet, octet).map(([b, c, d]) => `127.${b}.${c}.${d}`),
      fc.tuple(octet, octet).map(([c, d]) => `169.254.${c}.${d}`),
    );
    fc.assert(
      fc.property(blocked, (address) => {
        expect(checkAddress(address, strict).allowed).toBe(false);
        expect(checkAddress(`::ffff:${address}`, strict).allowed).toBe(false);
      }),
    );
  });
});
