import { sha256Hex } from "../../core/secrets";

/**
 * A small in-process LRU (a Map keeps insertion order; a hit re-inserts the key at the end). Used for
 * compiled MJML (keyed by `contentHash` of the MJML document), tiles (`tileCacheKey`) and previews.
 * Entries are shared between callers and must be treated as immutable.
 */
export class LruCache<V> {
  readonly #entries = new Map<string, V>();
  readonly maxEntries: number;

  constructor(maxEntries: number) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new RangeError("maxEntries must be a positive integer.");
    this.maxEntries = maxEntries;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string): V | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }

  has(key: string): boolean {
    return this.#entries.has(key);
  }

  set(key: string, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
  }

  delete(key: string): boolean {
    return this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }
}

/** JSON with object keys sorted, so equal content hashes equally whatever the key order. */
function canonicalJson(value: unknown): string {
  if (value === undefined || value === null) return "null";
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((item: unknown) => canonicalJson(item)).join(",")}]`;
  if (typeof value !== "object") throw new TypeError(`Cannot hash a ${typeof value}.`);
  const entries = Object.entries(value).filter(([, item]) => item !== undefined);
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
}

/** SHA-256 hex of a string, or of canonical JSON for structured content (plain data only). */
export function contentHash(content: unknown): string {
  return sha256Hex(typeof content === "string" ? content : canonicalJson(content));
}
