import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { getPayloadFromClientToken } from "@vercel/blob/client";

/**
 * An HTTP-level stand-in for the Vercel Blob API that the real `@vercel/blob` SDK talks to when
 * `VERCEL_BLOB_API_URL` points at it: `PUT /?pathname=` with the read-write token or a client token, `GET
 * /?url=` (head), `GET /?prefix=` (list), `POST /delete`, and public reads under `/public/<pathname>`. Client
 * tokens are checked as Vercel does (HMAC-SHA256 of the payload under the read-write token, then pathname,
 * content types, size cap, expiry, no overwrite), so an upload it accepts shows the scope the token claims;
 * a read-write `put` replaces an existing blob only with `allowOverwrite` (`x-allow-overwrite: 1`).
 */

export type FakeBlob = { bytes: Buffer; contentType: string; maxAge: string | undefined };
export type BlobRequest = { method: string; url: string; authorization: string; headers: IncomingMessage["headers"]; body: Buffer };

export async function startBlobFake(options: { storeId: string; readWriteToken: string }) {
  const { storeId, readWriteToken } = options;
  const seen: BlobRequest[] = [];
  const blobs = new Map<string, FakeBlob>();
  let api = "";

  /** Why Vercel would refuse this client-token PUT, or null when it would store it. */
  function refusal(token: string, pathname: string, contentType: string, size: number): string | null {
    const prefix = `vercel_blob_client_${storeId}_`;
    if (!token.startsWith(prefix)) return "token of another store";
    const [signature = "", payload = ""] = Buffer.from(token.slice(prefix.length), "base64").toString("utf8").split(".");
    const expected = createHmac("sha256", readWriteToken).update(payload).digest();
    const given = Buffer.from(signature, "hex");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return "invalid token signature";
    const grant = getPayloadFromClientToken(token);
    if (grant.pathname !== pathname) return `pathname ${pathname} is not the token's`;
    if (grant.validUntil <= Date.now()) return "token expired";
    if (!grant.allowedContentTypes?.includes(contentType)) return `content type ${contentType} not allowed`;
    if (grant.maximumSizeInBytes !== undefined && size > grant.maximumSizeInBytes) return `larger than ${grant.maximumSizeInBytes} bytes`;
    if (!grant.allowOverwrite && blobs.has(pathname)) return "blob already exists";
    return null;
  }

  function reply(res: ServerResponse, status: number, body: unknown) {
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  }

  function serve(req: IncomingMessage, res: ServerResponse, body: Buffer) {
    const url = new URL(req.url ?? "/", api);
    const authorization = req.headers.authorization ?? "";
    const token = authorization.replace(/^Bearer /, "");
    seen.push({ method: req.method ?? "", url: req.url ?? "", authorization, headers: req.headers, body });
    const blobJson = (pathname: string, blob: FakeBlob) => ({
      url: `${api}/public/${pathname}`,
      downloadUrl: `${api}/public/${pathname}?download=1`,
      pathname,
      size: blob.bytes.length,
      contentType: blob.contentType,
      contentDisposition: "inline",
      cacheControl: `public, max-age=${blob.maxAge ?? 2592000}`,
      uploadedAt: new Date().toISOString(),
      etag: '"e"',
    });
    const notFound = () => reply(res, 404, { error: { code: "not_found", message: "The requested blob does not exist" } });

    if (req.method === "GET" && url.pathname.startsWith("/public/")) {
      const blob = blobs.get(decodeURIComponent(url.pathname.slice("/public/".length)));
      if (!blob) return notFound();
      return void res.writeHead(200, { "content-type": blob.contentType }).end(blob.bytes);
    }
    const pathname = url.searchParams.get("pathname") ?? url.searchParams.get("url")?.replace(`${api}/public/`, "") ?? "";
    const contentType = String(req.headers["x-content-type"] ?? "");
    if (req.method === "PUT" && token !== readWriteToken) {
      const problem = refusal(token, pathname, contentType, body.length);
      if (problem) return reply(res, 400, { error: { code: "bad_request", message: problem } });
    } else if (req.method === "PUT" && req.headers["x-allow-overwrite"] !== "1" && blobs.has(pathname)) {
      return reply(res, 400, { error: { code: "bad_request", message: "This blob already exists" } });
    } else if (token !== readWriteToken) {
      return reply(res, 403, { error: { code: "forbidden", message: "Access denied" } });
    }
    if (req.method === "PUT") {
      const blob = { bytes: body, contentType, maxAge: req.headers["x-cache-control-max-age"] as string | undefined };
      blobs.set(pathname, blob);
      return reply(res, 200, blobJson(pathname, blob));
    }
    if (req.method === "GET" && url.searchParams.has("prefix")) {
      const prefix = url.searchParams.get("prefix") ?? "";
      const listed = [...blobs.entries()].filter(([name]) => name.startsWith(prefix));
      return reply(res, 200, { blobs: listed.map(([name, blob]) => blobJson(name, blob)), hasMore: false });
    }
    if (req.method === "GET") {
      const blob = blobs.get(pathname);
      return blob ? reply(res, 200, blobJson(pathname, blob)) : notFound();
    }
    if (req.method === "POST" && url.pathname === "/delete") {
      for (const target of (JSON.parse(body.toString("utf8")) as { urls: string[] }).urls) blobs.delete(target.replace(`${api}/public/`, ""));
      return reply(res, 200, {});
    }
    reply(res, 400, { error: { code: "bad_request", message: `unexpected ${req.method} ${req.url}` } });
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => serve(req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: api,
    seen,
    blobs,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
