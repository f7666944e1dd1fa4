import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./context";
import { ApiError, BadRequestError } from "./errors";
import { decodeUtf8, invalidBodyError, pathWhere } from "./strict-text";

/*
 * Input that no route may see, refused once for every route: JSON nested deeper than MAX_JSON_DEPTH
 * (recursive code further on, `JSON.stringify` included, must never meet it: 400), NUL characters in
 * any string, key, query parameter or path segment (PostgreSQL text cannot hold them: 422 naming the
 * field) and strings that are not valid Unicode: a lone surrogate (`"\ud800"` as a JSON escape) parses
 * into a JavaScript string, but PostgreSQL's jsonb refuses it and a text column would silently change it
 * (422 naming the field). Integers are bounded by each schema (`int32` for integer columns).
 */

export const MAX_JSON_DEPTH = 32;
const NUL = "\u0000";
/** A UTF-16 surrogate that is not half of a pair: with the `u` flag a pair is one astral code point, so only lone halves match. */
const LONE_SURROGATE = /\p{Cs}/u;
const LONE_SURROGATES = /\p{Cs}/gu;

type Flaw = "nul" | "surrogate";

function flawOf(text: string): Flaw | null {
  if (text.includes(NUL)) return "nul";
  return LONE_SURROGATE.test(text) ? "surrogate" : null;
}

/** A path or key as it may be echoed: NUL spelled out, lone surrogates replaced (an answer must be valid Unicode too). */
function printable(text: string): string {
  return text.replaceAll(NUL, "\\u0000").replace(LONE_SURROGATES, "\uFFFD");
}

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

/** The dotted path of the first string or key holding a NUL character or a lone surrogate, and which; null when clean. Depth is bounded by the caller. */
export function findFlaw(value: unknown): { path: string; flaw: Flaw } | null {
  const found: { flaw: Flaw | null } = { flaw: null };
  const path = pathWhere(value, (text) => {
    found.flaw = flawOf(text);
    return found.flaw !== null;
  });
  const { flaw } = found;
  if (path === null) return null;
  return flaw === null ? null : { path: printable(path) || "body", flaw };
}

/**
 * A copy of parsed JSON that PostgreSQL can store, for input that must be accepted rather than refused
 * (the provider webhook receivers: a refusal would make the provider retry forever): NUL characters
 * dropped, lone surrogates replaced by U+FFFD, in strings and keys. Depth is bounded by the caller
 * (`jsonNestsDeeperThan`).
 */
export function sanitisedJson(value: unknown): unknown {
  if (typeof value === "string") return sanitisedText(value);
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(sanitisedJson);
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [sanitisedText(key), sanitisedJson(item)]));
}

function sanitisedText(text: string): string {
  return flawOf(text) === null ? text : text.replaceAll(NUL, "").replace(LONE_SURROGATES, "\uFFFD");
}

function flawError(path: string, flaw: Flaw): ApiError {
  if (flaw === "surrogate") {
    return new ApiError("validation_error", "Text must be valid Unicode: a lone UTF-16 surrogate (such as \\ud800) is not a character.", {
      details: [{ path, message: "Contains a lone surrogate, which is not valid Unicode." }],
    });
  }
  return new ApiError("validation_error", "Text may not contain NUL characters (\\u0000).", {
    details: [{ path, message: "Contains a NUL character (\\u0000)." }],
  });
}

/**
 * Whether JSON text can parse into a string or key with a flaw. A NUL or a lone surrogate is in parsed JSON
 * only if the text holds it raw (JSON.parse refuses a raw NUL inside a string; a raw lone surrogate cannot
 * come out of UTF-8 decoding, but an in-process caller can pass one) or as a `\u` escape: `\u0000` or
 * `\uD800`–`\uDFFF` (a valid pair is two such escapes, so it is checked by parsing too). False means clean
 * without parsing; true may be a false alarm (`\\u0000` is a backslash and the text "u0000"), which the
 * parse then clears.
 */
const FLAW_ESCAPE = /\\u(?:0000|[dD][89abcdefABCDEF][0-9a-fA-F]{2})/;
const mayHoldFlaw = (text: string): boolean => flawOf(text) !== null || FLAW_ESCAPE.test(text);

/**
 * Checks the query, the path and a JSON body before any route runs (not the body of a route that declares it raw). A JSON body's text is read here (Hono
 * caches it for the route's validator) and scanned, not parsed: only text that may hold a flaw is parsed
 * here, to name the field. Hono's `c.req.json()` parses the cached text again, whatever the body cache
 * holds, so parsing every body here made each request parse its body twice and hold both copies until the
 * answer (for an add call of 5,000 recipients, 0.7 MB more that outlived the young generation). Malformed JSON is left to the validator (400 there).
 */
export function inputHygiene(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const url = c.req.url;
    const query = url.indexOf("?");
    if (query !== -1 && url.includes("%00", query)) {
      for (const [name, values] of Object.entries(c.req.queries())) {
        if (name.includes(NUL) || values.some((v) => v.includes(NUL))) throw flawError(printable(name), "nul");
      }
    }
    if (c.req.path.includes("%00") || c.req.path.includes(NUL)) throw flawError("path", "nul");

    const method = c.req.method;
    if (
      (method === "POST" || method === "PUT" || method === "PATCH" || method === "DELETE") &&
      /^application\/([\w.-]+\+)?json\s*(;|$)/i.test(c.req.header("content-type") ?? "") &&
      !c.get("route")?.rawBody
    ) {
      // Strict UTF-8: bytes that are no character are refused here, naming the field, never replaced by
      // U+FFFD (which `c.req.text()` would do). The text then stands in for the body in Hono's cache, so
      // every later reader (the validator, the idempotency fingerprint, the audit) reads exactly it.
      const bytes = new Uint8Array(await c.req.arrayBuffer());
      const decoded = decodeUtf8(bytes);
      if ("invalid" in decoded) throw invalidBodyError(bytes, decoded.invalid);
      const text = decoded.text;
      // Hono keeps promises in this cache (its type says values).
      c.req.bodyCache = { text: Promise.resolve(text) } as unknown as typeof c.req.bodyCache;
      if (jsonNestsDeeperThan(text, MAX_JSON_DEPTH)) throw new BadRequestError(`JSON may nest arrays and objects at most ${MAX_JSON_DEPTH} levels deep.`);
      if (mayHoldFlaw(text)) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          return next();
        }
        const flaw = findFlaw(parsed);
        if (flaw !== null) throw flawError(flaw.path, flaw.flaw);
      }
    }
    await next();
  };
}
