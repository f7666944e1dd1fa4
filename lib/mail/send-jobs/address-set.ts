import { formatUuid } from "./ids";

/**
 * A job's recipients for duplicate detection: sorted 32-byte entries, each the first 16 bytes of the
 * recipient hash (SHA-256 of the normalised address; 128 bits, so a false duplicate is as likely as two
 * random UUIDs colliding) followed by the 16 bytes of the message id. Stored base64 in one row per job.
 */
const KEY = 16;
const ENTRY = 32;

/** `count` entries at the start of `entries`; the buffer may have room for more (see `mergeAddressSets`). */
export type AddressSet = { entries: Buffer; count: number };

/** An empty set with room for `capacity` entries. */
export const emptyAddressSet = (capacity = 0): AddressSet => ({ entries: Buffer.allocUnsafeSlow(capacity * ENTRY), count: 0 });

/** Bytes the set's entries take (its buffer may be larger). */
export const addressSetBytes = (set: AddressSet): number => set.count * ENTRY;

export function decodeAddressSet(base64: string, count: number): AddressSet {
  const entries = Buffer.from(base64, "base64");
  if (entries.length !== count * ENTRY) throw new Error("address set is corrupt: length does not match its count");
  return { entries, count };
}

export function encodeAddressSet(set: AddressSet): string {
  return set.entries.toString("base64", 0, set.count * ENTRY);
}

/** The set key of a recipient hash (64 hex characters); written into `into` (a lookup's scratch, 16 bytes) when given. */
export function addressKey(recipientHash: string, into?: Buffer): Buffer {
  if (!into) return Buffer.from(recipientHash.slice(0, KEY * 2), "hex");
  into.write(recipientHash, 0, KEY, "hex");
  return into;
}

/**
 * The entry's key against `key`: negative when it sorts before. The first four bytes, compared as an
 * unsigned integer, decide for all but one pair in four billion (the keys are hash prefixes); only a tie
 * there takes the byte-wise comparison, which costs a native call each time.
 */
function compareKeyAt(entries: Buffer, index: number, key: Buffer): number {
  const head = entries.readUInt32BE(index * ENTRY) - key.readUInt32BE(0);
  return head !== 0 ? head : entries.compare(key, 0, KEY, index * ENTRY, index * ENTRY + KEY);
}

/** Index of the first entry in [from, to) whose key is not below `key` (`to` when none is). */
function lowerBound(set: AddressSet, key: Buffer, from = 0, to = set.count): number {
  let low = from;
  let high = to;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareKeyAt(set.entries, middle, key) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

function uuidAt(entries: Buffer, index: number): string {
  return formatUuid(entries, index * ENTRY + KEY);
}

/** The message id already given to this key, or null. */
export function findAddress(set: AddressSet, key: Buffer): string | null {
  const at = lowerBound(set, key);
  return at < set.count && compareKeyAt(set.entries, at, key) === 0 ? uuidAt(set.entries, at) : null;
}

/** The given entries as a set (sorted by key); keys must be distinct. */
export function addressSetOf(added: readonly { key: Buffer; messageId: string }[]): AddressSet {
  const sorted = [...added].sort((a, b) => a.key.readUInt32BE(0) - b.key.readUInt32BE(0) || Buffer.compare(a.key, b.key));
  const entries = Buffer.allocUnsafe(sorted.length * ENTRY);
  sorted.forEach((entry, i) => {
    entry.key.copy(entries, i * ENTRY, 0, KEY);
    entries.write(entry.messageId.replaceAll("-", ""), i * ENTRY + KEY, KEY, "hex");
  });
  return { entries, count: sorted.length };
}

/**
 * Adds `added`'s entries to `set`, whose keys are distinct from them, in place: from the last added entry
 * backwards, each run of `set`'s entries above it moves up to its final place (a memmove), then the entry is
 * written below it. The buffer is replaced only when it has no room, by one with a quarter more than needed,
 * so a job's set of a million recipients (32 MB) is not copied into a fresh buffer at each call of 5,000
 * (a fresh buffer per call would leave 32 MB to the garbage collector each time and raise the peak RSS).
 * Returns the set (`set` itself unless it grew); `set` must not be in use by anyone else.
 */
export function mergeAddressSets(set: AddressSet, added: AddressSet): AddressSet {
  const total = set.count + added.count;
  let target = set;
  if (set.entries.length < total * ENTRY) {
    const entries = Buffer.allocUnsafeSlow(Math.ceil(total * 1.25) * ENTRY);
    set.entries.copy(entries, 0, 0, set.count * ENTRY);
    target = { entries, count: set.count };
  }
  const { entries } = target;
  let end = target.count;
  for (let i = added.count - 1; i >= 0; i--) {
    const key = added.entries.subarray(i * ENTRY, i * ENTRY + KEY);
    const at = lowerBound(target, key, 0, end);
    if (at < end) entries.copyWithin((at + i + 1) * ENTRY, at * ENTRY, end * ENTRY);
    added.entries.copy(entries, (at + i) * ENTRY, i * ENTRY, (i + 1) * ENTRY);
    end = at;
  }
  target.count = total;
  return target;
}
