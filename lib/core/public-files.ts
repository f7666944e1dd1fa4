import { Hono } from "hono";
import { PUBLISHED_PATHNAME, type LocalBlobStore } from "../adapters/blob";
import { errorBody, NotFoundError } from "./errors";

/** Where the embedded mode serves published files (`GET /files/assets/<sha256>.<ext>`). */
export const FILES_PATH = "/files";

/**
 * The embedded stand-in for Vercel Blob's public CDN: `GET /files/{assets,creatives}/<sha256>.<ext>` with the stored
 * content type and the immutable cache header. `nosniff` makes browsers honour the declared image type.
 */
export function createPublicFilesRoutes(store: LocalBlobStore): Hono {
  const files = new Hono();
  // Image assets (mail) and rendered creatives and template previews (ads), each content-addressed.
  for (const folder of ["assets", "creatives"]) {
    files.get(`/${folder}/:name`, async (c) => {
      // Published names only: raw uploads live in the same store but are never served.
      const match = PUBLISHED_PATHNAME.exec(`${folder}/${c.req.param("name")}`);
      const blob = match ? await store.get(`${folder}/${c.req.param("name")}`) : null;
      if (!match || !blob) {
        const requestId = crypto.randomUUID();
        c.header("X-Request-Id", requestId);
        c.header("X-Content-Type-Options", "nosniff");
        return c.json(errorBody(new NotFoundError("File"), "mail", requestId), 404);
      }
      const etag = `"${match[2]}"`;
      const headers = { "Cache-Control": blob.cacheControl, ETag: etag, "X-Content-Type-Options": "nosniff" };
      if (c.req.header("if-none-match") === etag) return c.body(null, 304, headers);
      return c.body(new Uint8Array(blob.bytes), 200, { ...headers, "Content-Type": blob.contentType, "Content-Length": String(blob.bytes.byteLength) });
    });
  }
  return files;
}
