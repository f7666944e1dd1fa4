import { isAscii } from "node:buffer";
import type { IncomingHttpHeaders } from "node:http";
import type { Readable } from "node:stream";

/**
 * Request bodies of the simulator's send endpoints, read straight from the Node request. A batch of 500
 * newsletters is ~18 MB; the generic path (@hono/node-server's `text()`) concatenates the chunks into a
 * fresh buffer (a new mapping and its page faults on every call) and decodes it with a UTF-8 decoder.
 * Here the chunks go into a receive buffer kept between requests, and an all-ASCII body (what our batch
 * writer sends) is decoded as Latin-1, a plain byte copy and about twice as fast. On the 100k send-job
 * bench this was a fifth of the simulator's CPU time.
 */

const KEPT_BUFFERS = 4;
const spare: Buffer[] = [];

function takeBuffer(size: number): Buffer {
  const index = spare.findIndex((b) => b.length >= size);
  if (index >= 0) return spare.splice(index, 1)[0] as Buffer;
  return Buffer.allocUnsafeSlow(Math.max(size, 64 * 1024));
}

function giveBack(buffer: Buffer): void {
  if (spare.length < KEPT_BUFFERS) spare.push(buffer);
}

export type BodyText = { ok: true; text: string } | { ok: false; reason: "too_large" };

/** The whole body as text (UTF-8, a leading byte order mark dropped as `TextDecoder` does); `too_large` past `maxBytes`. */
export function readBodyText(incoming: Readable & { headers: IncomingHttpHeaders; complete: boolean }, maxBytes: number): Promise<BodyText> {
  const declared = Number(incoming.headers["content-length"]);
  let buffer = takeBuffer(Number.isSafeInteger(declared) && declared > 0 && declared <= maxBytes ? declared : 64 * 1024);
  let length = 0;
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      giveBack(buffer);
      outcome();
    };
    const append = (chunk: Buffer): boolean => {
      if (length + chunk.length > maxBytes) {
        incoming.resume();
        settle(() => resolve({ ok: false, reason: "too_large" }));
        return false;
      }
      if (length + chunk.length > buffer.length) {
        const grown = takeBuffer(Math.min(maxBytes, Math.max(buffer.length * 2, length + chunk.length)));
        buffer.copy(grown, 0, 0, length);
        giveBack(buffer);
        buffer = grown;
      }
      length += chunk.copy(buffer, length);
      return true;
    };
    const finish = () => {
      if (settled) return;
      const view = buffer.subarray(0, length);
      const decoded = isAscii(view) ? view.toString("latin1") : view.toString("utf8");
      const text = decoded.charCodeAt(0) === 0xfeff ? decoded.slice(1) : decoded;
      settle(() => resolve({ ok: true, text }));
    };
    // A client that gave up waiting (its timeout) after sending the whole body: the request still counts,
    // as it does at Postmark, so what the stream holds is read out of it.
    const closed = () => {
      if (settled) return;
      if (!incoming.complete) return settle(() => reject(new Error("The client closed the connection before the body was complete.")));
      for (let chunk = incoming.read() as Buffer | null; chunk !== null; chunk = incoming.read() as Buffer | null) if (!append(chunk)) return;
      finish();
    };
    incoming.on("data", (chunk: Buffer) => {
      if (!settled) append(chunk);
    });
    incoming.once("end", finish);
    incoming.once("error", (error) => (incoming.complete ? closed() : settle(() => reject(error))));
    incoming.once("close", closed);
    if (incoming.destroyed) closed();
  });
}
