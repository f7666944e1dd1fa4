import type { HeadBlobResult } from "@vercel/blob";
import {
  assertValidPathname,
  readCapped,
  UploadTooLargeError,
  type BlobStore,
  type PutOptions,
  type ReceivedUpload,
  type UploadTarget,
  type UploadTargetRequest,
} from "./store";
import { traceBlobStore } from "./tracing";

export type VercelBlobStoreOptions = {
  /** `BLOB_READ_WRITE_TOKEN` of a public store (`vercel_blob_rw_<storeId>_<secret>`). */
  token: string;
  /** Upper bound for downloading a raw upload in `readUpload`. */
  downloadTimeoutMs?: number;
};

/**
 * The API version `@vercel/blob` 2.8 sends (`BLOB_API_VERSION`, not exported). The test replays a real
 * client-token `put()` from the SDK and compares its request with our upload target, so an SDK upgrade
 * that changes the version fails there instead of in production.
 */
const VERCEL_BLOB_API_VERSION = "12";
const DEFAULT_VERCEL_BLOB_API_URL = "https://vercel.com/api/blob";
/** The most `list` returns per call. */
const LIST_PAGE_SIZE = 1000;

/**
 * The SDK reads its API base from these variables on every call and offers no per-call option; the upload
 * target we hand out must point at the same place as our own `put`/`del`, so it follows the same rule.
 * Tests point it at a local HTTP fake.
 */
function vercelBlobApiUrl(): string {
  return process.env.VERCEL_BLOB_API_URL || process.env.NEXT_PUBLIC_VERCEL_BLOB_API_URL || DEFAULT_VERCEL_BLOB_API_URL;
}

/**
 * The SDK on first use, not at a cold start: it carries its own HTTP client (undici, ~0.4 MB of code), and
 * most requests of a function never touch a file.
 */
const loadSdk = () =>
  Promise.all([import("@vercel/blob"), import("@vercel/blob/client")]).then(([sdk, client]) => ({
    ...sdk,
    generateClientTokenFromReadWriteToken: client.generateClientTokenFromReadWriteToken,
  }));

/** Production files on Vercel Blob. The store must be public: published asset URLs go into e-mails. */
export function createVercelBlobStore(options: VercelBlobStoreOptions): BlobStore {
  const { token } = options;
  const storeId = token.split("_")[3];
  if (!token.startsWith("vercel_blob_rw_") || !storeId) {
    throw new Error("BLOB_READ_WRITE_TOKEN must look like vercel_blob_rw_<storeId>_<secret>");
  }
  const downloadTimeoutMs = options.downloadTimeoutMs ?? 30_000;

  return traceBlobStore("vercel", {
    async put(pathname: string, bytes: Uint8Array, putOptions: PutOptions) {
      assertValidPathname(pathname);
      const { put } = await loadSdk();
      const blob = await put(pathname, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), {
        access: "public",
        token,
        contentType: putOptions.contentType,
        cacheControlMaxAge: putOptions.cacheControlMaxAge,
        // The URL must equal the pathname we computed (content-addressed), and a second completion or an
        // identical image of another asset writes the very same bytes, so overwriting is harmless.
        addRandomSuffix: false,
        allowOverwrite: true,
      });
      return { url: blob.url };
    },

    async delete(urlOrPathname: string | string[]) {
      if (Array.isArray(urlOrPathname) && urlOrPathname.length === 0) return;
      const { del, BlobNotFoundError } = await loadSdk();
      try {
        await del(urlOrPathname, { token });
      } catch (error) {
        // Whether the API answers a missing blob with success or with `not_found`, it is gone, as asked.
        if (!(error instanceof BlobNotFoundError)) throw error;
      }
    },

    async *listPathnames(prefix: string) {
      const { list } = await loadSdk();
      let cursor: string | undefined;
      do {
        const page = await list({ prefix, cursor, limit: LIST_PAGE_SIZE, token });
        yield page.blobs.map((blob) => blob.pathname);
        cursor = page.hasMore ? page.cursor : undefined;
      } while (cursor);
    },

    async createUploadTarget(request: UploadTargetRequest): Promise<UploadTarget> {
      assertValidPathname(request.pathname);
      // A client token is Vercel's signed-upload credential: HMAC-signed with our read-write token, scoped
      // to one pathname, one content type, a size cap and an expiry, enforced by Vercel on the PUT.
      const { generateClientTokenFromReadWriteToken } = await loadSdk();
      const clientToken = await generateClientTokenFromReadWriteToken({
        token,
        pathname: request.pathname,
        allowedContentTypes: [request.contentType],
        maximumSizeInBytes: request.maxBytes,
        validUntil: request.expiresAt.getTime(),
        addRandomSuffix: false,
        // A second PUT is refused while the first file exists. A token cannot be revoked, so once the
        // service has removed the file the token may put one back until it expires; the asset cleanup
        // cron sweeps such files (see `sweepRawUploads`).
        allowOverwrite: false,
      });
      // Exactly the request `put(pathname, body, { access: "public", token: clientToken, contentType })`
      // from `@vercel/blob/client` makes, minus its per-attempt diagnostics (request id, attempt number).
      return {
        method: "PUT",
        url: `${vercelBlobApiUrl()}/?${new URLSearchParams({ pathname: request.pathname }).toString()}`,
        headers: {
          authorization: `Bearer ${clientToken}`,
          "x-api-version": VERCEL_BLOB_API_VERSION,
          "x-vercel-blob-store-id": storeId,
          "x-vercel-blob-access": "public",
          "x-content-type": request.contentType,
        },
      };
    },

    async readUpload({ pathname, maxBytes }): Promise<ReceivedUpload | null> {
      assertValidPathname(pathname);
      const { head, BlobNotFoundError } = await loadSdk();
      let meta: HeadBlobResult;
      try {
        meta = await head(pathname, { token });
      } catch (error) {
        if (error instanceof BlobNotFoundError) return null;
        throw error;
      }
      if (meta.size > maxBytes) throw new UploadTooLargeError(pathname, maxBytes);
      const response = await fetch(meta.url, { signal: AbortSignal.timeout(downloadTimeoutMs) });
      if (response.status === 404) return null;
      if (!response.ok || !response.body) throw new Error(`Vercel Blob download of ${pathname} failed with ${response.status}`);
      // Capped whatever `head` said about the size.
      return { bytes: await readCapped(response.body, pathname, maxBytes), contentType: meta.contentType || null };
    },

    // Published files are public https URLs on Vercel's CDN: callers fetch them like any other URL.
    async readPublished(): Promise<Uint8Array | null> {
      return null;
    },
  });
}
