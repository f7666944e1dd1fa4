import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { getPayloadFromClientToken, put as clientPut } from "@vercel/blob/client";
import sharp from "sharp";
import { afterAll, beforeAll, beforeEach, describe, expect, test, vi } from "vitest";
import { createVercelBlobStore, PUBLISHED_FILE_MAX_AGE_SECONDS, UploadTooLargeError, type BlobStore } from "../../lib/adapters/blob";
import { contentAddressedPathname, optimiseImage } from "../../lib/mail/assets/optimise";
import { MAX_UPLOAD_BYTES, newUploadPathname } from "../../lib/mail/assets/upload-signature";

/**
 * The production adapter runs the real `@vercel/blob` client against an HTTP-level fake of the Vercel Blob
 * API on 127.0.0.1 (the SDK honours `VERCEL_BLOB_API_URL`). The fake enforces client tokens the way Vercel
 * documents them: HMAC-SHA256 of the payload under the read-write token, and the payload's pathname, content
 * types, size cap, expiry and overwrite rule; so an upload target that passes here is scoped as claimed.
 */

const STORE_ID = "TestStore42";
const RW_TOKEN = `vercel_blob_rw_${STORE_ID}_s3cr3tReadWritePart`;

type Recorded = { method: string; path: string; headers: IncomingMessage["headers"]; body: Buffer };
type StoredBlob = { bytes: Buffer; contentType: string; cacheControlMaxAge: string | undefined };

let server: Server;
let base: string;
const requests: Recorded[] = [];
const blobs = new Map<string, StoredBlob>();

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

function apiError(res: ServerResponse, status: number, code: string, message: string) {
  json(res, status, { error: { code, message } });
}

/** Checks a client token like Vercel does; returns the reason it is refused, or null. */
function clientTokenProblem(token: string, pathname: string, contentType: string | undefined, size: number): string | null {
  const [, , , storeId, encoded = ""] = token.split("_");
  if (storeId !== STORE_ID) return "wrong store";
  const [signature = "", payloadBase64 = ""] = Buffer.from(encoded, "base64").toString("utf8").split(".");
  const expected = createHmac("sha256", RW_TOKEN).update(payloadBase64).digest();
  const given = Buffer.from(signature, "hex");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return "bad signature";
  const payload = getPayloadFromClientToken(token);
  if (payload.pathname !== pathname) return `"pathname" ${pathname} does not match the token payload`;
  if (payload.validUntil <= Date.now()) return "Token expired";
  if (payload.allowedContentTypes && !payload.allowedContentTypes.includes(contentType ?? "")) return `contentType ${contentType} is not allowed`;
  if (payload.maximumSizeInBytes !== undefined && size > payload.maximumSizeInBytes) {
    return `the file length cannot be greater than ${payload.maximumSizeInBytes} bytes`;
  }
  if (!payload.allowOverwrite && blobs.has(pathname)) return "This blob already exists";
  return null;
}

function handle(req: IncomingMessage, res: ServerResponse, body: Buffer) {
  const url = new URL(req.url ?? "/", base);
  const header = (name: string) => {
    const value = req.headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const bearer = header("authorization")?.replace(/^Bearer /, "") ?? "";
  const publicUrl = (pathname: string) => `${base}/public/${pathname}`;

  if (req.method === "GET" && url.pathname.startsWith("/public/")) {
    const blob = blobs.get(decodeURIComponent(url.pathname.slice("/public/".length)));
    if (!blob) return apiError(res, 404, "not_found", "The requested blob does not exist");
    res.writeHead(200, { "content-type": blob.contentType, "content-length": blob.bytes.length }).end(blob.bytes);
    return;
  }
  if (bearer !== RW_TOKEN && !bearer.startsWith("vercel_blob_client_")) return apiError(res, 403, "forbidden", "Access denied");

  const pathname = url.searchParams.get("pathname");
  if (req.method === "PUT" && url.pathname === "/" && pathname) {
    const contentType = header("x-content-type");
    if (bearer !== RW_TOKEN) {
      const problem = clientTokenProblem(bearer, pathname, contentType, body.length);
      if (problem) return apiError(res, 400, "bad_request", problem);
    } else if (header("x-allow-overwrite") !== "1" && blobs.has(pathname)) {
      return apiError(res, 400, "bad_request", "This blob already exists");
    }
    blobs.set(pathname, { bytes: body, contentType: contentType ?? "application/octet-stream", cacheControlMaxAge: header("x-cache-control-max-age") });
    return json(res, 200, {
      url: publicUrl(pathname),
      downloadUrl: `${publicUrl(pathname)}?download=1`,
      pathname,
      contentType,
      contentDisposition: `inline; filename="${pathname.split("/").pop() ?? ""}"`,
      etag: `"${randomUUID()}"`,
    });
  }
  const prefix = url.searchParams.get("prefix");
  if (req.method === "GET" && url.pathname === "/" && prefix !== null && bearer === RW_TOKEN) {
    // Keyset pages of at most two (the API may return fewer than `limit`), so the adapter must follow the cursor.
    const after = url.searchParams.get("cursor") ?? "";
    const matching = [...blobs.keys()].filter((p) => p.startsWith(prefix) && p > after).sort();
    const page = matching.slice(0, Math.min(2, Number(url.searchParams.get("limit") ?? 1000)));
    const hasMore = matching.length > page.length;
    return json(res, 200, {
      blobs: page.map((p) => ({
        url: publicUrl(p),
        downloadUrl: `${publicUrl(p)}?download=1`,
        pathname: p,
        size: blobs.get(p)?.bytes.length ?? 0,
        uploadedAt: new Date().toISOString(),
        etag: '"etag"',
      })),
      hasMore,
      ...(hasMore ? { cursor: page.at(-1) } : {}),
    });
  }
  const lookup = url.searchParams.get("url");
  if (req.method === "GET" && url.pathname === "/" && lookup && bearer === RW_TOKEN) {
    const blob = blobs.get(lookup);
    if (!blob) return apiError(res, 404, "not_found", "The requested blob does not exist");
    return json(res, 200, {
      url: publicUrl(lookup),
      downloadUrl: `${publicUrl(lookup)}?download=1`,
      pathname: lookup,
      size: blob.bytes.length,
      contentType: blob.contentType,
      contentDisposition: "inline",
      cacheControl: `public, max-age=${blob.cacheControlMaxAge ?? 2592000}`,
      uploadedAt: new Date().toISOString(),
      etag: '"etag"',
    });
  }
  if (req.method === "POST" && url.pathname === "/delete" && bearer === RW_TOKEN) {
    const { urls } = JSON.parse(body.toString("utf8")) as { urls: string[] };
    const pathnames = urls.map((target) => (target.startsWith(`${base}/public/`) ? target.slice(`${base}/public/`.length) : target));
    // Answers a missing blob with not_found, the stricter of the two behaviours the adapter must absorb.
    if (!pathnames.every((p) => blobs.has(p))) return apiError(res, 404, "not_found", "The requested blob does not exist");
    for (const p of pathnames) blobs.delete(p);
    return json(res, 200, {});
  }
  apiError(res, 400, "bad_request", `Unexpected ${req.method} ${req.url}`);
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      requests.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body });
      handle(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  vi.stubEnv("VERCEL_BLOB_API_URL", base);
  // A refused request must surface at once instead of being retried ten times with backoff.
  vi.stubEnv("VERCEL_BLOB_RETRIES", "0");
});

afterAll(async () => {
  vi.unstubAllEnvs();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

let store: BlobStore;
beforeEach(() => {
  requests.length = 0;
  store = createVercelBlobStore({ token: RW_TOKEN });
});

const inOneHour = () => new Date(Date.now() + 3600_000);
const onlyRequest = () => {
  expect(requests).toHaveLength(1);
  return requests[0] as Recorded;
};

describe("Vercel Blob adapter over HTTP", () => {
  test("put sends the bytes with our read-write token, content type, cache age and a fixed name", async () => {
    const bytes = new Uint8Array([0xff, 0xd8, 0xff, 1, 2, 3]);
    const { url } = await store.put("assets/0123abcd.jpg", bytes, { contentType: "image/jpeg", cacheControlMaxAge: PUBLISHED_FILE_MAX_AGE_SECONDS });
    expect(url).toBe(`${base}/public/assets/0123abcd.jpg`);
    const request = onlyRequest();
    expect(request.method).toBe("PUT");
    expect(request.path).toBe("/?pathname=assets%2F0123abcd.jpg");
    expect(request.headers).toMatchObject({
      authorization: `Bearer ${RW_TOKEN}`,
      "x-content-type": "image/jpeg",
      "x-cache-control-max-age": String(PUBLISHED_FILE_MAX_AGE_SECONDS),
      "x-add-random-suffix": "0",
      "x-allow-overwrite": "1",
      "x-vercel-blob-access": "public",
    });
    expect(new Uint8Array(request.body)).toEqual(bytes);
  });

  test("putting the same content-addressed name twice succeeds (identical bytes overwrite)", async () => {
    const options = { contentType: "image/png", cacheControlMaxAge: PUBLISHED_FILE_MAX_AGE_SECONDS };
    await store.put("assets/same.png", new Uint8Array([1]), options);
    await expect(store.put("assets/same.png", new Uint8Array([1]), options)).resolves.toEqual({ url: `${base}/public/assets/same.png` });
  });

  test("delete posts the URL to /delete with the read-write token; a second delete is fine", async () => {
    const { url } = await store.put("assets/todelete.jpg", new Uint8Array([1]), { contentType: "image/jpeg", cacheControlMaxAge: 60 });
    requests.length = 0;
    await store.delete(url);
    const request = onlyRequest();
    expect([request.method, request.path, request.headers.authorization]).toEqual(["POST", "/delete", `Bearer ${RW_TOKEN}`]);
    expect(JSON.parse(request.body.toString("utf8"))).toEqual({ urls: [url] });
    expect(blobs.has("assets/todelete.jpg")).toBe(false);
    await expect(store.delete(url)).resolves.toBeUndefined();
  });

  test("delete takes many URLs or pathnames in one request; none is no request", async () => {
    for (const name of ["assets/many-1.jpg", "assets/many-2.jpg"])
      await store.put(name, new Uint8Array([1]), { contentType: "image/jpeg", cacheControlMaxAge: 60 });
    requests.length = 0;
    await store.delete([`${base}/public/assets/many-1.jpg`, "assets/many-2.jpg"]);
    expect(JSON.parse(onlyRequest().body.toString("utf8"))).toEqual({ urls: [`${base}/public/assets/many-1.jpg`, "assets/many-2.jpg"] });
    expect([blobs.has("assets/many-1.jpg"), blobs.has("assets/many-2.jpg")]).toEqual([false, false]);
    requests.length = 0;
    await store.delete([]);
    expect(requests).toEqual([]);
  });

  test("listPathnames follows the cursor through every page of the prefix, with the read-write token", async () => {
    const names = ["sweep/a", "sweep/b", "sweep/c", "sweep/d", "sweep/e"];
    for (const name of [...names, "other/x"]) await store.put(name, new Uint8Array([1]), { contentType: "image/png", cacheControlMaxAge: 60 });
    requests.length = 0;
    const pages: string[][] = [];
    for await (const page of store.listPathnames("sweep/")) pages.push(page);
    expect(pages).toEqual([["sweep/a", "sweep/b"], ["sweep/c", "sweep/d"], ["sweep/e"]]);
    expect(requests.map((r) => `${r.method} ${decodeURIComponent(r.path)} ${r.headers.authorization}`)).toEqual([
      `GET /?limit=1000&prefix=sweep/ Bearer ${RW_TOKEN}`,
      `GET /?limit=1000&prefix=sweep/&cursor=sweep/b Bearer ${RW_TOKEN}`,
      `GET /?limit=1000&prefix=sweep/&cursor=sweep/d Bearer ${RW_TOKEN}`,
    ]);
  });

  test("the upload target carries a client token scoped to one pathname, one content type, a size cap and an expiry", async () => {
    const assetId = randomUUID();
    const expiresAt = inOneHour();
    const pathname = newUploadPathname(assetId);
    const target = await store.createUploadTarget({ pathname, assetId, contentType: "image/webp", maxBytes: MAX_UPLOAD_BYTES, expiresAt });
    expect(target.method).toBe("PUT");
    expect(target.url).toBe(`${base}/?pathname=${encodeURIComponent(pathname)}`);
    const clientToken = target.headers.authorization?.replace(/^Bearer /, "") ?? "";
    expect(clientToken.startsWith(`vercel_blob_client_${STORE_ID}_`)).toBe(true);
    expect(clientToken).not.toContain(RW_TOKEN.split("_")[4]);
    expect(getPayloadFromClientToken(clientToken)).toEqual({
      pathname,
      allowedContentTypes: ["image/webp"],
      maximumSizeInBytes: MAX_UPLOAD_BYTES,
      validUntil: expiresAt.getTime(),
      addRandomSuffix: false,
      allowOverwrite: false,
    });
    expect(target.headers).toEqual({
      authorization: `Bearer ${clientToken}`,
      "x-api-version": "12",
      "x-vercel-blob-store-id": STORE_ID,
      "x-vercel-blob-access": "public",
      "x-content-type": "image/webp",
    });
    expect(requests).toEqual([]);
  });

  test("the target is exactly the request @vercel/blob/client put() makes with that token", async () => {
    const assetId = randomUUID();
    const pathname = newUploadPathname(assetId);
    const target = await store.createUploadTarget({ pathname, assetId, contentType: "image/png", maxBytes: 1000, expiresAt: inOneHour() });
    const clientToken = target.headers.authorization?.replace(/^Bearer /, "") ?? "";
    await clientPut(pathname, Buffer.from([1, 2, 3]), { access: "public", token: clientToken, contentType: "image/png" });

    const request = onlyRequest();
    const perAttempt = new Set(["x-api-blob-request-id", "x-api-blob-request-attempt"]);
    const sdkHeaders = Object.fromEntries(
      Object.entries(request.headers).filter(([name]) => (name.startsWith("x-") && !perAttempt.has(name)) || name === "authorization"),
    );
    expect({ method: request.method, url: `${base}${request.path}`, headers: sdkHeaders }).toEqual({
      method: target.method,
      url: target.url,
      headers: target.headers,
    });
  });

  describe("the three steps end to end", () => {
    test("customer PUT with the target, readUpload, optimise, publish, delete the raw upload", async () => {
      const assetId = randomUUID();
      const pathname = newUploadPathname(assetId);
      const target = await store.createUploadTarget({ pathname, assetId, contentType: "image/jpeg", maxBytes: MAX_UPLOAD_BYTES, expiresAt: inOneHour() });
      expect(await store.readUpload({ pathname, maxBytes: MAX_UPLOAD_BYTES })).toBeNull();

      const original = await sharp({ create: { width: 2000, height: 1000, channels: 3, background: "#446688" } })
        .jpeg()
        .toBuffer();
      const put = await fetch(target.url, { method: target.method, headers: target.headers, body: original });
      expect(put.status, await put.clone().text()).toBe(200);

      const upload = await store.readUpload({ pathname, maxBytes: MAX_UPLOAD_BYTES });
      expect(upload?.contentType).toBe("image/jpeg");
      expect(Buffer.from(upload?.bytes ?? new Uint8Array()).equals(original)).toBe(true);

      const image = await optimiseImage(upload?.bytes ?? new Uint8Array());
      const published = await store.put(contentAddressedPathname(image), image.bytes, {
        contentType: image.contentType,
        cacheControlMaxAge: PUBLISHED_FILE_MAX_AGE_SECONDS,
      });
      expect(published.url).toMatch(new RegExp(`^${base}/public/assets/[0-9a-f]{64}\\.jpg$`));
      await store.delete(pathname);
      expect(await store.readUpload({ pathname, maxBytes: MAX_UPLOAD_BYTES })).toBeNull();

      const served = await fetch(published.url);
      expect(served.headers.get("content-type")).toBe("image/jpeg");
      expect((await sharp(Buffer.from(await served.arrayBuffer())).metadata()).width).toBe(1360);
    });

    test.each([
      ["another pathname", { pathname: "uploads/someone-else" }, /does not match the token payload/],
      ["another content type", { contentType: "image/svg+xml" }, /is not allowed/],
      ["more bytes than the cap", { size: 101 }, /cannot be greater than 100/],
    ])("the store refuses a PUT with the token to %s", async (_name, change, message) => {
      const assetId = randomUUID();
      const pathname = newUploadPathname(assetId);
      const target = await store.createUploadTarget({ pathname, assetId, contentType: "image/png", maxBytes: 100, expiresAt: inOneHour() });
      const url = "pathname" in change ? `${base}/?pathname=${encodeURIComponent(change.pathname)}` : target.url;
      const headers = "contentType" in change ? { ...target.headers, "x-content-type": change.contentType } : target.headers;
      const body = new Uint8Array("size" in change ? change.size : 10);
      const response = await fetch(url, { method: "PUT", headers, body });
      const text = await response.text();
      expect(response.status, text).toBe(400);
      expect(text).toMatch(message);
    });

    test("the store refuses a second PUT to the same upload and an expired token", async () => {
      const assetId = randomUUID();
      const pathname = newUploadPathname(assetId);
      const target = await store.createUploadTarget({ pathname, assetId, contentType: "image/png", maxBytes: 100, expiresAt: inOneHour() });
      expect((await fetch(target.url, { method: "PUT", headers: target.headers, body: new Uint8Array(5) })).status).toBe(200);
      const again = await fetch(target.url, { method: "PUT", headers: target.headers, body: new Uint8Array(5) });
      expect(await again.text()).toMatch(/already exists/);

      const expiredId = randomUUID();
      const expired = await store.createUploadTarget({
        pathname: newUploadPathname(expiredId),
        assetId: expiredId,
        contentType: "image/png",
        maxBytes: 100,
        expiresAt: new Date(Date.now() - 1000),
      });
      const late = await fetch(expired.url, { method: "PUT", headers: expired.headers, body: new Uint8Array(5) });
      expect(await late.text()).toMatch(/Token expired/);
    });

    test("readUpload refuses an upload over the cap from its size alone, without downloading it", async () => {
      const pathname = newUploadPathname(randomUUID());
      await store.put(pathname, new Uint8Array(2048), { contentType: "image/png", cacheControlMaxAge: 60 });
      requests.length = 0;
      await expect(store.readUpload({ pathname, maxBytes: 1024 })).rejects.toBeInstanceOf(UploadTooLargeError);
      expect(requests.map((r) => r.method)).toEqual(["GET"]);
      expect(requests[0]?.path).toBe(`/?url=${encodeURIComponent(pathname)}`);
    });
  });

  test("a token that is not a read-write token is refused at construction", () => {
    expect(() => createVercelBlobStore({ token: "not-a-token" })).toThrow(/vercel_blob_rw_/);
  });
});
