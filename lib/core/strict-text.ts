import type { Context, MiddlewareHandler } from "hono";
import type { IncomingMessage } from "node:http";
import { ApiError, BadRequestError, echoedPath } from "./errors";

/*
 * Text a request carries reaches the service as it was sent, or the request is refused; it is never
 * silently changed. The request target (path and query) and the headers the service reads are ASCII, as
 * HTTP has them; percent-encoded bytes in the path and the query must decode to UTF-8 (`decodeURIComponent`
 * refuses a stray `%`, overlong forms, encoded surrogates and bytes past U+10FFFF); a JSON body must be
 * UTF-8 (RFC 8259 8.1), decoded with a fatal decoder. Everything else answers 400 `bad_request` naming what
 * could not be read: the path segment, the query parameter, the header, or the body's field (the body as a
 * whole when the bytes are outside every string). A path segment longer than any id the APIs issue names
 * no resource: 404, before anything looks it up.
 *
 * The provider receivers (Postmark, Meta) are the exception: a refusal would have the provider retry the
 * same bytes forever, so they replace what is not UTF-8 with U+FFFD, answer 2xx and log that they did
 * (`receivedText`).
 */

/** The longest path segment any operation takes (a UUID is 36; a target key, a name, an e-mail address at most 254). */
const MAX_PATH_SEGMENT_CHARS = 256;

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });
const lenientUtf8 = new TextDecoder("utf-8");

/**
 * Offset of the first byte that does not start a well-formed UTF-8 sequence (Unicode's table 3-7: no
 * overlong forms, no surrogates, nothing past U+10FFFF), or -1. Only run once the fatal decoder has
 * refused the bytes, to say where.
 */
function firstInvalidOffset(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i] ?? 0;
    if (lead < 0x80) {
      i++;
      continue;
    }
    let trailing: number;
    let low = 0x80;
    let high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) trailing = 1;
    else if (lead >= 0xe0 && lead <= 0xef) {
      trailing = 2;
      if (lead === 0xe0) low = 0xa0;
      if (lead === 0xed) high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      trailing = 3;
      if (lead === 0xf0) low = 0x90;
      if (lead === 0xf4) high = 0x8f;
    } else return i;
    for (let k = 1; k <= trailing; k++) {
      const next = bytes[i + k];
      if (next === undefined) return i;
      const [min, max] = k === 1 ? [low, high] : [0x80, 0xbf];
      if (next < min || next > max) return i;
    }
    i += trailing + 1;
  }
  return -1;
}

const hex = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).toUpperCase().padStart(2, "0")).join(" ");

/** Where bytes stop being UTF-8: the offset and the few bytes there, as hex (`ED A0 80`). */
type InvalidUtf8 = { offset: number; bytes: string };

/** The bytes as text, or where they stop being UTF-8. A leading byte-order mark is dropped, as `Response.text()` does. */
export function decodeUtf8(bytes: Uint8Array): { text: string } | { invalid: InvalidUtf8 } {
  try {
    return { text: strictUtf8.decode(bytes) };
  } catch {
    const offset = Math.max(0, firstInvalidOffset(bytes));
    // The invalid byte and the non-ASCII bytes after it (at most 4): what a reader looks for in a hex dump.
    let end = offset + 1;
    while (end < Math.min(bytes.length, offset + 4) && (bytes[end] ?? 0) >= 0x80) end++;
    return { invalid: { offset, bytes: hex(bytes.subarray(offset, end)) } };
  }
}

/**
 * Text from a provider's webhook: what is not UTF-8 becomes U+FFFD (a refusal would make the provider retry
 * forever); `replaced` says whether anything was, for the receiver's log.
 */
export function receivedText(bytes: Uint8Array): { text: string; replaced: InvalidUtf8 | null } {
  const decoded = decodeUtf8(bytes);
  return "text" in decoded ? { text: decoded.text, replaced: null } : { text: lenientUtf8.decode(bytes), replaced: decoded.invalid };
}

/** The dotted path of the first string or key of parsed JSON that `test` accepts; "" for the top-level value. Depth is bounded by the caller. */
export function pathWhere(value: unknown, test: (text: string) => boolean, path = ""): string | null {
  if (typeof value === "string") return test(value) ? path : null;
  if (value === null || typeof value !== "object") return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = pathWhere(value[i], test, path ? `${path}.${i}` : String(i));
      if (found !== null) return found;
    }
    return null;
  }
  for (const [key, item] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    if (test(key)) return at;
    const found = pathWhere(item, test, at);
    if (found !== null) return found;
  }
  return null;
}

/**
 * The field of a JSON body whose string or key holds the first invalid byte: the bytes there are replaced by
 * a marker that JSON can carry only inside a string (an escape), and the parsed value is searched for it.
 * Null when the bytes are outside every string, or the body is no JSON anyway.
 */
function fieldAt(bytes: Uint8Array, invalid: InvalidUtf8): string | null {
  const before = lenientUtf8.decode(bytes.subarray(0, invalid.offset));
  const after = lenientUtf8.decode(bytes.subarray(invalid.offset));
  const marker = `\u0000${crypto.randomUUID()}`;
  try {
    // `after` starts with the U+FFFD that stands for the invalid sequence.
    const parsed: unknown = JSON.parse(`${before}${JSON.stringify(marker).slice(1, -1)}${after.slice(1)}`);
    const path = pathWhere(parsed, (text) => text.includes(marker));
    return path === null ? null : path.replaceAll(marker, "\uFFFD").replaceAll("\u0000", "\\u0000");
  } catch {
    return null;
  }
}

/** The 400 for a JSON body that is not UTF-8, naming the field where the bytes are (else `body`). */
export function invalidBodyError(bytes: Uint8Array, invalid: InvalidUtf8): ApiError {
  const field = fieldAt(bytes, invalid);
  const where = field === null ? "the body" : field === "" ? "the body's string" : `field "${echoedPath(field)}"`;
  return new BadRequestError(
    `The request body is not valid UTF-8: bytes ${invalid.bytes} at offset ${invalid.offset} (in ${where}) are no character. Send JSON as UTF-8.`,
    [{ path: field || "body", message: `Not valid UTF-8 (bytes ${invalid.bytes} at byte offset ${invalid.offset}).` }],
  );
}

/** Percent-decoded text, or null when the `%` escapes are malformed or decode to bytes that are not UTF-8. */
function percentDecoded(text: string): string | null {
  if (!text.includes("%")) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

/**
 * The first parameter of `application/x-www-form-urlencoded` text (a query string, a form) whose name or value
 * does not decode to UTF-8: its name as it may be echoed (`query` when the name itself does not decode); null
 * when every one does.
 */
export function undecodableParameter(encoded: string): string | null {
  for (const pair of encoded.split("&")) {
    const equals = pair.indexOf("=");
    const name = percentDecoded((equals === -1 ? pair : pair.slice(0, equals)).replaceAll("+", " "));
    if (name === null) return "query";
    if (equals !== -1 && percentDecoded(pair.slice(equals + 1).replaceAll("+", " ")) === null) return echoedPath(name);
  }
  return null;
}

/** HTTP field values the service reads, as RFC 9110 has them without `obs-text`: visible ASCII, space and tab. */
const ASCII_FIELD_VALUE = /^[\t\x20-\x7e]*$/;
/** A request target is ASCII (RFC 9112 3.2); anything else is percent-encoded by the client. */
const ASCII_TARGET = /^[\x21-\x7e]*$/;

/** The headers some route or middleware reads as text (compared, parsed or stored). */
const READ_HEADERS = [
  "authorization",
  "idempotency-key",
  "service-version",
  "content-type",
  "accept",
  "if-none-match",
  "origin",
  "x-csrf-token",
  "user-agent",
  "x-forwarded-for",
] as const;

/** The request line as the Node server received it (latin-1 text of its bytes); undefined elsewhere. */
function rawTarget(c: Context): string | undefined {
  return (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.url;
}

/** The first problem of the request target and the headers read, as the error to answer; null when all is text. */
export function unreadableRequest(c: Context): ApiError | null {
  const target = rawTarget(c);
  if (target !== undefined && !ASCII_TARGET.test(target)) {
    return new BadRequestError("The request target must be ASCII: percent-encode other characters as UTF-8.", [
      { path: "path", message: "Contains bytes outside ASCII." },
    ]);
  }
  const url = c.req.url;
  const start = url.indexOf("/", url.indexOf("://") + 3);
  const queryAt = url.indexOf("?", start);
  const path = start === -1 ? "/" : queryAt === -1 ? url.slice(start) : url.slice(start, queryAt);
  const segments = path.split("/");
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i] ?? "";
    const decoded = percentDecoded(segment);
    if (decoded === null) {
      return new BadRequestError(`The request path is not valid percent-encoded UTF-8 (segment ${i}: "${echoedPath(segment)}").`, [
        { path: "path", message: `Segment ${i} does not decode to UTF-8 text.` },
      ]);
    }
    if (decoded.length > MAX_PATH_SEGMENT_CHARS) {
      return new ApiError("not_found", `No resource has an id of ${decoded.length} characters (at most ${MAX_PATH_SEGMENT_CHARS}): ${echoedPath(path)}.`);
    }
  }
  if (queryAt !== -1) {
    const name = undecodableParameter(url.slice(queryAt + 1));
    if (name !== null) {
      return new BadRequestError(`The query parameter "${name}" is not valid percent-encoded UTF-8.`, [
        { path: name, message: "Does not decode to UTF-8 text." },
      ]);
    }
  }
  for (const name of READ_HEADERS) {
    const value = c.req.header(name);
    if (value !== undefined && !ASCII_FIELD_VALUE.test(value)) {
      return new BadRequestError(`The ${name} header must be ASCII text.`, [{ path: name, message: "Contains bytes outside visible ASCII." }]);
    }
  }
  return null;
}

/** Refuses, before any other middleware reads them, a request target or headers that are not text (see above). */
export function requireTextualRequest(): MiddlewareHandler {
  return async (c, next) => {
    const problem = unreadableRequest(c);
    if (problem) throw problem;
    await next();
  };
}
