import { Hono } from "hono";
import type { LocalBlobStore } from "../../../adapters/blob";
import { errorBody, NotFoundError } from "../../../core/errors";

/** Published names only (`<folder>/<sha256>.<ext>`): raw uploads live in the same store but are never served. */
const PUBLISHED_NAME = /^([0-9a-f]{64})\.(jpg|png|mp4)$/;

/**
 * The embedded stand-in for Vercel Blob's public CDN: `GET /files/{assets,creatives}/<sha256>.<ext>` with the stored
 * content type and the immutable cache header. `nosniff` makes browsers honour the declared image type.
 */
export function createPublicFilesRoutes(store: LocalBlobStore): Hono {
  const files = new Hono();
  // Image assets (mail) and rendered creatives and template previews (ads), each content-addressed.
  for (const folder of ["assets", "creatives"]) {
    files.get(`/${folder}/:name`, async (c) => {
      const match = PUBLISHED_NAME.exec(c.req.param("name"));
      const blob = match ? await store.get(`${folder}/${c.req.param("name")}`) : null;
      if (!match || !blob) {
        const requestId = crypto.randomUUID();
        c.header("X-Request-Id", requestId);
        return c.json(errorBody(new NotFoundError("File"), "mail", requestId), 404);
      }
      const etag = `"${match[1]}"`;
      const headers = { "Cache-Control": blob.cacheControl, ETag: etag, "X-Content-Type-Options": "nosniff" };
      if (c.req.header("if-none-match") === etag) return c.body(null, 304, headers);
      return c.body(new Uint8Array(blob.bytes), 200, { ...headers, "Content-Type": blob.contentType, "Content-Length": String(blob.bytes.byteLength) });
    });
  }
  return files;
}
