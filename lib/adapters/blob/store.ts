/**
 * Files, per DESIGN §2: Vercel Blob in production, a directory served by the app in the embedded mode.
 * The asset service runs the same three steps against either store:
 *   1. `createUploadTarget` hands the customer a signed PUT (URL + headers) for one pathname;
 *   2. the customer PUTs the raw bytes there, straight to the store (never through our 4.5 MB request cap);
 *   3. `readUpload` fetches those bytes, the service optimises them, `put` publishes the result under a
 *      content-addressed pathname and `delete` removes the raw upload.
 */

export type PutOptions = {
  contentType: string;
  /** Seconds browsers and the CDN may cache the file; content-addressed files use a year. */
  cacheControlMaxAge: number;
};

export type UploadTargetRequest = {
  /** Where the raw bytes land; the upload is valid for this one pathname only. */
  pathname: string;
  /** The only content type the PUT may declare. */
  contentType: string;
  maxBytes: number;
  expiresAt: Date;
  assetId: string;
  customerId?: string;
};

/** What the customer's server sends: `PUT url` with exactly these headers and the raw bytes as the body. */
export type UploadTarget = { method: "PUT"; url: string; headers: Record<string, string> };

export type ReceivedUpload = { bytes: Uint8Array; contentType: string | null };

export type BlobStore = {
  /**
   * Stores `bytes` publicly and returns the public https address. An existing file at the same pathname is
   * replaced: published pathnames are content-addressed, so a repeat writes identical bytes.
   */
  put(pathname: string, bytes: Uint8Array, options: PutOptions): Promise<{ url: string }>;
  /** Removes files by public URL or pathname (one call for many); a file that is already gone is not an error. */
  delete(urlOrPathname: string | string[]): Promise<void>;
  /** Pathnames of the complete files under `prefix` (ending with `/`), a page at a time; for sweeps. */
  listPathnames(prefix: string): AsyncIterable<string[]>;
  createUploadTarget(request: UploadTargetRequest): Promise<UploadTarget>;
  /**
   * The raw bytes a customer uploaded to `pathname`, or `null` while nothing has been uploaded (the
   * service answers 409 to a `complete` before the upload). Throws `UploadTooLargeError` rather than
   * reading more than `maxBytes` into memory.
   */
  readUpload(request: { pathname: string; maxBytes: number }): Promise<ReceivedUpload | null>;
  /**
   * The bytes of a file this store published (a `PUBLISHED_PATHNAME`), found by its public URL; `null` when
   * the URL is not one of this store's published files (callers then fetch it like any other URL) or the
   * file is gone. Lets a customer hand back a URL we gave out without a round trip through the network.
   */
  readPublished(url: string, maxBytes: number): Promise<Uint8Array | null>;
};

/**
 * Published pathnames: content-addressed files in the public folders (mail assets, ad creatives and
 * previews). Raw uploads live in the same store under other names and are never served or read back as
 * published files.
 */
export const PUBLISHED_PATHNAME = /^(assets|creatives)\/([0-9a-f]{64})\.(jpg|png|mp4)$/;

/** A year: published files never change under their content-addressed name. */
export const PUBLISHED_FILE_MAX_AGE_SECONDS = 365 * 24 * 60 * 60;

export class UploadTooLargeError extends Error {
  readonly maxBytes: number;
  constructor(pathname: string, maxBytes: number) {
    super(`The upload at ${pathname} is larger than ${maxBytes} bytes`);
    this.name = "UploadTooLargeError";
    this.maxBytes = maxBytes;
  }
}

/** Reads a body stream but never more than `maxBytes` of it into memory. */
export async function readCapped(body: ReadableStream<Uint8Array>, pathname: string, maxBytes: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw new UploadTooLargeError(pathname, maxBytes);
    }
    chunks.push(value);
  }
  return new Uint8Array(Buffer.concat(chunks, total));
}

const PATHNAME_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/**
 * Pathnames come from our own code (asset ids, content hashes), never from customers, but the local store
 * maps them onto the filesystem, so every segment must start with a letter or digit: no `..`, no hidden
 * files, no absolute paths, no empty segments.
 */
export function assertValidPathname(pathname: string): void {
  const segments = pathname.split("/");
  if (pathname.length > 512 || !segments.every((segment) => PATHNAME_SEGMENT.test(segment))) {
    throw new Error(`Invalid blob pathname: ${JSON.stringify(pathname)}`);
  }
}
