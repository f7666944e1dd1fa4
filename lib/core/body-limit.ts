import type { Socket } from "node:net";
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "./context";
import { ApiError } from "./errors";

/*
 * Request bodies are bounded before anything reads them into memory, on every route, ahead of
 * authentication and parsing:
 * - a declared `Content-Length` over the route's limit is refused at once, nothing read (over HTTP/1.1 the
 *   parser never hands over more than the declared length, so a declared body within the limit is safe);
 * - a body without a length (chunked, or an in-process `Request`) is read here, counting as it streams,
 *   and refused the moment it passes the limit; within the limit it is handed on as bytes, so nothing
 *   after this point can read more than the limit;
 * - `GET`, `HEAD` and `OPTIONS` take no body: one declared or streamed is refused;
 * - a route that streams its body itself (a raw upload) keeps its own, larger cap and refuses in the same
 *   way (413, the rest unread, the connection closed): it is passed through untouched here.
 * The refusal is 413 `payload_too_large` in the surface's envelope with `Connection: close`: the server
 * ends the connection after the answer instead of reading the rest (`closeAfterAnswer`), so the client
 * stops sending and memory stays flat whatever it sends. The same code runs on the Node server
 * (`@hono/node-server`) and in the Vercel functions (a web `Request`).
 */

/** Bytes a request body may have, or `streamed`: the route reads its body as a stream and enforces its own cap (raw uploads). */
export type BodyLimit = { maxBytes: number } | "streamed";

/** Vercel's request-body limit, and the limit of every JSON operation of the three APIs. */
export const MAX_JSON_BODY_BYTES = 4.5 * 1024 * 1024;

const BODYLESS_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** How long a refused connection stays open (not read) after its answer, so the client reads the answer before the reset. */
const LINGER_MS = 2000;

/**
 * Ends the connection after this answer although the client may still be sending its body. Node's server
 * ends a `Connection: close` answer with `socket.destroySoon()`: the FIN and at once the close, which
 * resets a connection with unread data, and a client still writing can lose the answer to the reset
 * (EPIPE/ECONNRESET instead of the 413). So on the Node server the socket is half-closed after the
 * answer, no longer read (the client's writes stall in the socket buffers) and destroyed `LINGER_MS`
 * later: nginx's "lingering close", without reading what the client sends. On Vercel the platform owns
 * the connection; the header is all there is to do.
 */
export function closeAfterAnswer(c: Context): void {
  c.header("Connection", "close");
  const socket = (c.env as { incoming?: { socket?: Socket } } | undefined)?.incoming?.socket;
  if (!socket || socket.destroyed) return;
  let lingering = false;
  socket.destroySoon = () => {
    if (lingering) return;
    lingering = true;
    socket.pause();
    socket.end();
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once("close", () => clearTimeout(timer));
  };
}

class PayloadTooLargeError extends ApiError {
  constructor(maxBytes: number) {
    super(
      "payload_too_large",
      maxBytes === 0
        ? "This request takes no body."
        : `The request body exceeds this endpoint's limit of ${maxBytes} bytes; it was not read (the connection is closed).`,
    );
  }
}

/**
 * The body limit of each request, from `limitOf` (by path). Throws `PayloadTooLargeError`: the app's error
 * handler writes it in the surface's envelope.
 */
export function limitRequestBody(limitOf: (c: Context<AppEnv>) => BodyLimit): MiddlewareHandler<AppEnv> {
  const refuse = (c: Context, maxBytes: number): never => {
    closeAfterAnswer(c);
    throw new PayloadTooLargeError(maxBytes);
  };
  return async (c, next) => {
    const method = c.req.method;
    const length = c.req.header("content-length");
    const chunked = c.req.header("transfer-encoding") !== undefined;
    if (BODYLESS_METHODS.has(method)) {
      // `@hono/node-server` exposes no body on GET/HEAD, so only the headers can tell one is coming.
      if ((length !== undefined && length.trim() !== "0") || chunked) refuse(c, 0);
      return next();
    }
    const limit = limitOf(c);
    if (limit === "streamed") return next();
    if (length !== undefined) {
      const declared = Number(length);
      if (!Number.isSafeInteger(declared) || declared > limit.maxBytes) refuse(c, limit.maxBytes);
      return next();
    }
    const body = c.req.raw.body;
    if (body === null) return next();
    const bytes = await readAtMost(body, limit.maxBytes);
    if (bytes === null) refuse(c, limit.maxBytes);
    const raw = c.req.raw;
    c.req.raw = new Request(raw.url, { method, headers: raw.headers, body: bytes, signal: raw.signal });
    await next();
  };
}

/** The whole body, or null as soon as it passes `maxBytes` (the rest is never read: the stream is cancelled). */
async function readAtMost(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<Uint8Array<ArrayBuffer> | null> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
