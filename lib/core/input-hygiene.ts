import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./context";
import { ApiError, BadRequestError } from "./errors";

/*
 * Input that no route may see, refused once for every route: JSON nested deeper than MAX_JSON_DEPTH
 * (recursive code further on, `JSON.stringify` included, must never meet it: 400) and NUL characters in
 * any string, key, query parameter or path segment (PostgreSQL text cannot hold them: 422 naming the
 * field). Integers are bounded by each schema (`int32` for integer columns).
 */

export const MAX_JSON_DEPTH = 32;
const NUL = "\u0000";

/** Whether JSON text nests arrays and objects deeper than `limit`; strings are skipped, nothing is parsed. */
export function jsonNestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** The dotted path of the first string or key holding a NUL character, or null. Depth is bounded by the caller. */
export function findNul(value: unknown, path = ""): string | null {
  if (typeof value === "string") return value.includes(NUL) ? path || "body" : null;
  if (value === null || typeof value !== "object") return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findNul(value[i], path ? `${path}.${i}` : String(i));
      if (found !== null) return found;
    }
    return null;
  }
  for (const [key, item] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    if (key.includes(NUL)) return at.replaceAll(NUL, "\\u0000");
    const found = findNul(item, at);
    if (found !== null) return found;
  }
  return null;
}

/**
 * A copy of parsed JSON without NUL characters in strings and keys, for input that must be accepted
 * rather than refused (the provider webhook receiver: a refusal would make the provider retry forever).
 * Depth is bounded by the caller (`jsonNestsDeeperThan`).
 */
export function withoutNul(value: unknown): unknown {
  if (typeof value === "string") return value.includes(NUL) ? value.replaceAll(NUL, "") : value;
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(withoutNul);
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key.replaceAll(NUL, ""), withoutNul(item)]));
}

function nulError(path: string): ApiError {
  return new ApiError("validation_error", "Text may not contain NUL characters (\\u0000).", {
    details: [{ path, message: "Contains a NUL character (\\u0000)." }],
  });
}

/**
 * Checks the query, the path and a JSON body before any route runs. A JSON body is read here once and
 * handed to the route's validator through Hono's body cache, so it is parsed once. Malformed JSON is left
 * to the validator (400 there).
 */
export function inputHygiene(rawBodyPaths: RegExp[]): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const url = c.req.url;
    const query = url.indexOf("?");
    if (query !== -1 && url.includes("%00", query)) {
      for (const [name, values] of Object.entries(c.req.queries())) {
        if (name.includes(NUL) || values.some((v) => v.includes(NUL))) throw nulError(name.replaceAll(NUL, "\\u0000"));
      }
    }
    if (c.req.path.includes("%00") || c.req.path.includes(NUL)) throw nulError("path");

    const method = c.req.method;
    if (
      (method === "POST" || method === "PUT" || method === "PATCH" || method === "DELETE") &&
      /^application\/([\w.-]+\+)?json\s*(;|$)/i.test(c.req.header("content-type") ?? "") &&
      !rawBodyPaths.some((p) => p.test(c.req.path))
    ) {
      const text = await c.req.text();
      if (jsonNestsDeeperThan(text, MAX_JSON_DEPTH)) throw new BadRequestError(`JSON may nest arrays and objects at most ${MAX_JSON_DEPTH} levels deep.`);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        return next();
      }
      const nul = findNul(parsed);
      if (nul !== null) throw nulError(nul);
      c.req.bodyCache.json = Promise.resolve(parsed);
    }
    await next();
  };
}
