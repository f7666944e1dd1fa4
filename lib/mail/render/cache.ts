import { sha256Hex } from "../../core/secrets";

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
