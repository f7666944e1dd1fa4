import type { IncomingMessage } from "node:http";
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
 *   after this point can read more than the limit. On the Node server it is read from the socket's
 *   `IncomingMessage` itself, not through the web `Request`'s body: Node's `Readable.toWeb` copies every
 *   chunk (a second copy of all that is read) and queues up to 16,384 chunks ahead of its reader, and the
 *   copies pile up as garbage until V8's next full collection (ten parallel refused 4.5 MB bodies per
 *   endpoint, tests/foundation/body-limits.test.ts: RSS +58 to +116 MB through the web body, +37 to +83 MB
 *   read directly; +11 to +25 MB with a forced collection after each connection: the rest is that garbage);
 * - `GET`, `HEAD` and `OPTIONS` take no body: one declared or streamed is refused;
 * - a route that streams its body itself (a raw upload) keeps its own, larger cap and refuses in the same
 *   way (413, the rest unread, the connection closed): it is passed through untouched here.
 * The refusal is 413 `payload_too_large` in the surface's envelope with `Connection: close`, answered
 * before the rest is read; after the answer the server drops what the client still sends for a bounded
 * while and then closes (`closeAfterAnswer`), so a client reads its 413 whichever way it sends, and memory
 * stays flat whatever it sends. The same code runs on the Node server
 * (`@hono/node-server`) and in the Vercel functions (a web `Request`).
 */

/** Bytes a request body may have, or `streamed`: the route reads its body as a stream and enforces its own cap (raw uploads). */
export type BodyLimit = { maxBytes: number } | "streamed";

/** Vercel's request-body limit, and the limit of every JSON operation of the three APIs. */
export const MAX_JSON_BODY_BYTES = 4.5 * 1024 * 1024;

/** Methods whose requests take no body: only their headers are checked (one announcing a body is refused). */
export const BODYLESS_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS"]);

/** How long a refused connection stays open after its answer at most, reading and dropping what the client still sends. */
const LINGER_MS = 5000;
/** How much of a refused body is read and dropped after the answer at most, before the connection is cut. */
const DRAIN_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Ends the connection after this answer although the client may still be sending its body. Node's server
 * ends a `Connection: close` answer with `socket.destroySoon()`: the FIN and at once the close, which
 * resets a connection with unread data, and a client still writing loses the answer to the reset
 * (EPIPE/ECONNRESET instead of the 413): every client that sends its whole body before it reads (Python's
 * `http.client`, `requests`, many SDKs) did, for any body larger than the socket buffers. So on the Node server
 * the answer is followed by nginx's "lingering close": our side is half-closed after the answer, and what the
 * client still sends is read and dropped (nothing of it is kept: the request streams into nothing), until the
 * client closes, `DRAIN_MAX_BYTES` have been dropped or `LINGER_MS` have passed; then the socket is
 * destroyed. A client that reads while it sends stops at the answer and closes; one that sends first gets to
 * the end of a body of up to 64 MB and then reads its 413. Nothing is read before the answer. On Vercel the
 * platform owns the connection; the header is all there is to do.
 */
export function closeAfterAnswer(c: Context): void {
  c.header("Connection", "close");
  const incoming = nodeIncoming(c);
  const socket = incoming?.socket;
  if (!incoming || !socket || socket.destroyed) return;
  let lingering = false;
  socket.destroySoon = () => {
    if (lingering) return;
    lingering = true;
    socket.end();
    const readBefore = socket.bytesRead;
    const cut = () => socket.destroy();
    const timer = setTimeout(cut, LINGER_MS);
    const watch = setInterval(() => {
      if (socket.bytesRead - readBefore > DRAIN_MAX_BYTES) cut();
    }, 50);
    timer.unref();
    watch.unref();
    socket.once("close", () => {
      clearTimeout(timer);
      clearInterval(watch);
    });
    // The request flows into nothing: what the client still sends is read from the socket and dropped.
    incoming.removeAllListeners("data");
    incoming.resume();
    socket.resume();
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
 * Whether a request announces a body (`Content-Length` or `Transfer-Encoding`). On the Node server the
 * headers are read off the socket's request: the web `Request`'s headers are only built when asked for, and a
 * route that reads nothing else (the root `GET /health`) need not build them.
 */
export function announcesBody(c: Context): boolean {
  const incoming = nodeIncoming(c);
  if (incoming) return incoming.headers["content-length"] !== undefined || incoming.headers["transfer-encoding"] !== undefined;
  return c.req.header("content-length") !== undefined || c.req.header("transfer-encoding") !== undefined;
}

/**
 * Refuses a `GET`, `HEAD` or `OPTIONS` request that announces a body (413, the connection closed).
 * `@hono/node-server` exposes no body on GET/HEAD, so only the headers can tell one is coming.
 */
export function refuseAnnouncedBody(c: Context): void {
  const length = c.req.header("content-length");
  if ((length !== undefined && length.trim() !== "0") || c.req.header("transfer-encoding") !== undefined) {
    closeAfterAnswer(c);
    throw new PayloadTooLargeError(0);
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
    if (BODYLESS_METHODS.has(method)) {
      refuseAnnouncedBody(c);
      return next();
    }
    const length = c.req.header("content-length");
    const limit = limitOf(c);
    if (limit === "streamed") return next();
    if (length !== undefined) {
      const declared = Number(length);
      if (!Number.isSafeInteger(declared) || declared > limit.maxBytes) refuse(c, limit.maxBytes);
      return next();
    }
    const bytes = await readBodyAtMost(c, limit.maxBytes);
    if (bytes === undefined) return next();
    if (bytes === null) refuse(c, limit.maxBytes);
    const raw = c.req.raw;
    c.req.raw = new Request(raw.url, { method, headers: raw.headers, body: bytes, signal: raw.signal });
    await next();
  };
}

/** The request's body up to `maxBytes`: its bytes, null once it passes them, undefined when there is none. */
async function readBodyAtMost(c: Context, maxBytes: number): Promise<Uint8Array<ArrayBuffer> | null | undefined> {
  const incoming = unreadIncoming(c);
  if (incoming) return readIncomingAtMost(incoming, maxBytes);
  const body = c.req.raw.body;
  return body === null ? undefined : readAtMost(body, maxBytes);
}

/** The request as the Node server (`@hono/node-server`) received it; undefined on Vercel and in `app.request()`. */
function nodeIncoming(c: Context): IncomingMessage | undefined {
  return (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
}

/** The Node request, while nothing has read its body yet (otherwise the body is read through `c.req.raw`). */
function unreadIncoming(c: Context): IncomingMessage | undefined {
  const incoming = nodeIncoming(c);
  return incoming && !incoming.readableDidRead && !incoming.readableEnded && !incoming.destroyed ? incoming : undefined;
}

/**
 * The whole body of a Node request, or null as soon as it passes `maxBytes`: then the request is paused and no
 * longer listened to, so the parser stops reading the socket once its small buffer is full.
 */
function readIncomingAtMost(incoming: IncomingMessage, maxBytes: number): Promise<Uint8Array<ArrayBuffer> | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const settle = (finish: () => void) => {
      incoming.off("data", onData);
      incoming.off("end", onEnd);
      incoming.off("error", onError);
      incoming.off("close", onClose);
      finish();
    };
    const onData = (chunk: Buffer) => {
      total += chunk.byteLength;
      if (total <= maxBytes) chunks.push(chunk);
      else {
        incoming.pause();
        settle(() => resolve(null));
      }
    };
    const onEnd = () => settle(() => resolve(concatenated(chunks, total)));
    const onError = (error: Error) => settle(() => reject(error));
    const onClose = () => settle(() => reject(new Error("The client closed the connection before its body ended.")));
    incoming.on("data", onData);
    incoming.on("end", onEnd);
    incoming.on("error", onError);
    incoming.on("close", onClose);
  });
}

function concatenated(chunks: Uint8Array[], total: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
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
  return concatenated(chunks, total);
}
