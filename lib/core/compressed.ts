import { createHash } from "node:crypto";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import type { Context, MiddlewareHandler } from "hono";

/*
 * Large static answers (the docs page's script, the OpenAPI documents, llms.txt) sent compressed when the client
 * accepts it. Invariants:
 * - One body per content: each encoding is computed once per process, on its first request, and kept.
 * - Brotli wins over gzip when both are accepted (a `q=0` refuses an encoding); anything else gets the bytes as
 *   they are. Every answer says `Vary: Accept-Encoding` and carries a strong ETag of the content, so a client
 *   with the same bytes gets 304 without a body.
 * - Brotli quality 6: ~3.9× on Scalar's bundle in ~0.15 s; quality 11 saves another 10 % for 15 s, too long for
 *   the first request of a fresh function.
 */

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

export type CompressedBody = {
  readonly etag: string;
  readonly identity: Buffer;
  br?: Promise<Buffer>;
  gzip?: Promise<Buffer>;
};

export function compressedBody(content: string | Buffer): CompressedBody {
  const identity = typeof content === "string" ? Buffer.from(content, "utf8") : content;
  return { identity, etag: `"${createHash("sha256").update(identity).digest("base64url").slice(0, 27)}"` };
}

/** The encoding to send for an `Accept-Encoding` header: "br", "gzip" or null (identity). */
function chooseEncoding(acceptEncoding: string | undefined): "br" | "gzip" | null {
  const accepted = new Map<string, number>();
  for (const part of (acceptEncoding ?? "").split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    if (!name) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    accepted.set(name, q ? Number(q.slice(2)) || 0 : 1);
  }
  const weight = (name: string) => accepted.get(name) ?? accepted.get("*") ?? 0;
  if (weight("br") > 0) return "br";
  if (weight("gzip") > 0) return "gzip";
  return null;
}

const view = (bytes: Buffer) => new Uint8Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength);

async function encoded(body: CompressedBody, encoding: "br" | "gzip"): Promise<Buffer> {
  if (encoding === "br") {
    body.br ??= brotli(body.identity, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 6, [constants.BROTLI_PARAM_SIZE_HINT]: body.identity.length },
    });
    return body.br;
  }
  body.gzip ??= gzipAsync(body.identity, { level: 9 });
  return body.gzip;
}

/** Answers `c` with `body`, compressed as negotiated, with its ETag and the given Cache-Control. */
export async function sendCompressed(c: Context, body: CompressedBody, contentType: string, cacheControl: string): Promise<Response> {
  const headers: Record<string, string> = { "Content-Type": contentType, "Cache-Control": cacheControl, ETag: body.etag, Vary: "Accept-Encoding" };
  const ifNoneMatch = c.req.header("if-none-match");
  if (ifNoneMatch?.split(",").some((tag) => tag.trim().replace(/^W\//, "") === body.etag)) return c.body(null, 304, headers);
  const encoding = chooseEncoding(c.req.header("accept-encoding"));
  if (!encoding) return c.body(view(body.identity), 200, headers);
  const bytes = await encoded(body, encoding);
  return c.body(view(bytes), 200, { ...headers, "Content-Encoding": encoding });
}

/** JSON answers smaller than this go as they are: below about a kilobyte compression saves less than its headers cost. */
const JSON_COMPRESSION_THRESHOLD_BYTES = 1024;

/**
 * Compresses an API's JSON answers (brotli, else gzip, as `Accept-Encoding` allows) once they reach
 * `JSON_COMPRESSION_THRESHOLD_BYTES`. Answers are made per request, so they are compressed per request, at a
 * speed-first setting (brotli quality 4, gzip level 6), not the assets' slower, tighter one.
 * Left as they are: other content types (CSV downloads), an answer that already has a `Content-Encoding` (the
 * OpenAPI documents, compressed once per process), and one marked `Cache-Control: no-transform`. Every JSON answer says
 * `Vary: Accept-Encoding`, compressed or not, so a cache never hands one client's encoding to another.
 */
export function compressJsonAnswers(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const res = c.res;
    if (!/^application\/(?:[\w.+-]+\+)?json\b/i.test(res.headers.get("content-type") ?? "")) return;
    if (res.headers.has("content-encoding") || /no-transform/i.test(res.headers.get("cache-control") ?? "") || !res.body) return;
    if (!/accept-encoding/i.test(res.headers.get("vary") ?? "")) res.headers.append("Vary", "Accept-Encoding");
    const encoding = chooseEncoding(c.req.header("accept-encoding"));
    if (!encoding || c.req.method === "HEAD") return;
    const identity = Buffer.from(await res.arrayBuffer());
    let body: Buffer = identity;
    if (identity.length >= JSON_COMPRESSION_THRESHOLD_BYTES) {
      body =
        encoding === "br"
          ? await brotli(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_SIZE_HINT]: identity.length } })
          : await gzipAsync(identity, { level: 6 });
    }
    // The body was read: the answer is rebuilt either way (Hono carries the old answer's headers over).
    c.res = undefined;
    c.res = new Response(view(body), { status: res.status, statusText: res.statusText, headers: res.headers });
    if (body !== identity) {
      c.res.headers.set("Content-Encoding", encoding);
      c.res.headers.delete("Content-Length");
    }
  };
}
