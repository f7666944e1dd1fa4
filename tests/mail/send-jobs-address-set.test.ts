import fc from "fast-check";
import { expect, test } from "vitest";
import { sha256Hex } from "../../lib/core/secrets";
import {
  addressKey,
  addressSetBytes,
  addressSetOf,
  decodeAddressSet,
  emptyAddressSet,
  encodeAddressSet,
  findAddress,
  mergeAddressSets,
  type AddressSet,
} from "../../lib/mail/send-jobs/address-set";

/** A set with the given entries added, as an add call does it: the entries as a segment, merged in. */
const addAddresses = (set: AddressSet, added: readonly { key: Buffer; messageId: string }[]) => mergeAddressSets(set, addressSetOf(added));
import { parseListAddress } from "../../lib/mail/send-jobs/recipients";
import { parseRecipient } from "../../lib/mail/sending/address";

test("the address set answers like a map from hash to message id, across any sequence of adds and encodings", () => {
  fc.assert(
    fc.property(fc.array(fc.array(fc.tuple(fc.string(), fc.uuid()), { maxLength: 30 }), { maxLength: 8 }), (calls) => {
      const model = new Map<string, string>();
      let set: AddressSet = emptyAddressSet();
      for (const call of calls) {
        const fresh = new Map<string, string>();
        for (const [address, id] of call) {
          const hash = sha256Hex(address);
          if (!model.has(hash) && !fresh.has(hash)) fresh.set(hash, id);
        }
        set = addAddresses(
          set,
          [...fresh].map(([hash, messageId]) => ({ key: addressKey(hash), messageId })),
        );
        for (const [hash, id] of fresh) model.set(hash, id);
        set = decodeAddressSet(encodeAddressSet(set), set.count);
      }
      expect(set.count).toBe(model.size);
      for (const [hash, id] of model) expect(findAddress(set, addressKey(hash))).toBe(id);
      expect(findAddress(set, addressKey(sha256Hex("never added \u0000")))).toBeNull();
    }),
  );
});

test("segments merged in any order give the same set as all entries at once, byte for byte", () => {
  fc.assert(
    fc.property(fc.uniqueArray(fc.string(), { maxLength: 80 }), fc.array(fc.integer({ min: 0, max: 80 }), { maxLength: 5 }), (addresses, cuts) => {
      const entries = addresses.map((a, i) => ({ key: addressKey(sha256Hex(a)), messageId: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}` }));
      const bounds = [0, ...[...cuts].sort((a, b) => a - b).map((c) => Math.min(c, entries.length)), entries.length];
      const segments = bounds.slice(1).map((to, i) => addressSetOf(entries.slice(bounds[i], to)));
      const whole = addressSetOf(entries).entries;
      // Grown as needed, and in place into a buffer sized for all of them up front (as a read of the stored segments does).
      for (const start of [emptyAddressSet(), emptyAddressSet(entries.length)]) {
        const merged = [...segments].reverse().reduce((set, segment) => mergeAddressSets(set, segment), start);
        expect(merged.entries.subarray(0, addressSetBytes(merged)).equals(whole)).toBe(true);
        expect(Buffer.from(encodeAddressSet(merged), "base64").equals(whole)).toBe(true);
        expect(merged.count).toBe(entries.length);
        if (start.entries.length === whole.length) expect(merged).toBe(start);
      }
    }),
  );
});

test("keys that share their first four bytes (where the fast comparison ties) are still told apart", () => {
  const hash = fc
    .tuple(fc.constantFrom("00000000", "7fffffff", "80000000", "ffffffff"), fc.stringMatching(/^[0-9a-f]{56}$/))
    .map(([head, tail]) => head + tail);
  fc.assert(
    fc.property(fc.uniqueArray(hash, { maxLength: 60 }), fc.integer({ min: 0, max: 60 }), (hashes, split) => {
      const id = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
      const entries = hashes.map((h, i) => ({ key: addressKey(h), messageId: id(i) }));
      const set = addAddresses(addAddresses(emptyAddressSet(), entries.slice(0, split)), entries.slice(split));
      for (const [i, h] of hashes.entries()) expect(findAddress(set, addressKey(h))).toBe(id(i));
      expect(findAddress(set, addressKey(`00000000${"e".repeat(56)}`))).toBe(
        hashes.indexOf(`00000000${"e".repeat(56)}`) >= 0 ? id(hashes.indexOf(`00000000${"e".repeat(56)}`)) : null,
      );
    }),
  );
});

test("the list fast path agrees with the RFC parser wherever it applies", () => {
  const local = fc.stringMatching(/^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]{1,10}(\.[A-Za-z0-9_-]{1,5}){0,2}$/);
  const domain = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?(\.[a-z]{2,6}){1,2}$/);
  fc.assert(
    fc.property(local, domain, fc.constantFrom("", " ", "\t"), (l, d, pad) => {
      const input = `${pad}${l}@${d}${pad}`;
      expect(parseListAddress(input)).toEqual(parseRecipient(input));
    }),
  );
  for (const input of ["Jane <jane@example.com>", "jane@localhost", "not an address", "a..b@example.com", '"quoted local"@example.com', "jäne@example.com"]) {
    expect(parseListAddress(input)).toEqual(parseRecipient(input));
  }
});
