/**
 * A job's recipients for duplicate detection: sorted 32-byte entries, each the first 16 bytes of the
 * recipient hash (SHA-256 of the normalised address; 128 bits, so a false duplicate is as likely as two
 * random UUIDs colliding) followed by the 16 bytes of the message id. Stored base64 in one row per job.
 */
const KEY = 16;
const ENTRY = 32;

export type AddressSet = { entries: Buffer; count: number };

export const emptyAddressSet = (): AddressSet => ({ entries: Buffer.alloc(0), count: 0 });

export function decodeAddressSet(base64: string, count: number): AddressSet {
  const entries = Buffer.from(base64, "base64");
  if (entries.length !== count * ENTRY) throw new Error("address set is corrupt: length does not match its count");
  return { entries, count };
}

export function encodeAddressSet(set: AddressSet): string {
  return set.entries.toString("base64");
}

/** The set key of a recipient hash (64 hex characters). */
export function addressKey(recipientHash: string): Buffer {
  return Buffer.from(recipientHash.slice(0, KEY * 2), "hex");
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

/** Index of the first entry whose key is not below `key`. */
function lowerBound(set: AddressSet, key: Buffer, from = 0): number {
  let low = from;
  let high = set.count;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareKeyAt(set.entries, middle, key) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

function uuidAt(entries: Buffer, index: number): string {
  const hex = entries.toString("hex", index * ENTRY + KEY, (index + 1) * ENTRY);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
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

/** One set of two whose keys are distinct: `added`'s entries copied in between runs of `set`'s. */
export function mergeAddressSets(set: AddressSet, added: AddressSet): AddressSet {
  const entries = Buffer.allocUnsafe((set.count + added.count) * ENTRY);
  let from = 0;
  let to = 0;
  for (let i = 0; i < added.count; i++) {
    const key = added.entries.subarray(i * ENTRY, i * ENTRY + KEY);
    const at = lowerBound(set, key, from);
    to += set.entries.copy(entries, to, from * ENTRY, at * ENTRY);
    from = at;
    to += added.entries.copy(entries, to, i * ENTRY, (i + 1) * ENTRY);
  }
  set.entries.copy(entries, to, from * ENTRY);
  return { entries, count: set.count + added.count };
}
