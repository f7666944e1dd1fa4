import { randomUUID } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { z } from "zod";
import {
  assertValidPathname,
  PUBLISHED_FILE_MAX_AGE_SECONDS,
  PUBLISHED_PATHNAME,
  UploadTooLargeError,
  type BlobStore,
  type PutOptions,
  type ReceivedUpload,
  type UploadTarget,
  type UploadTargetRequest,
} from "./store";
import { traceBlobStore } from "./tracing";

export type LocalBlobStoreOptions = {
  /** Root directory, e.g. `${DATA_DIR}/blobs`. */
  directory: string;
  /** Where the app serves `get()`, e.g. `${PUBLIC_BASE_URL}/files`; public URLs are `${filesBaseUrl}/${pathname}`. */
  filesBaseUrl: string;
  /**
   * Builds the app's own signed PUT URL for an upload (the embedded stand-in for a Vercel client token).
   * Injected so this adapter does not depend on the mail domain that owns the signature scheme.
   */
  signUploadUrl: (request: UploadTargetRequest) => string;
};

/** One stored file as the app's file route serves it. */
type LocalBlob = { bytes: Uint8Array; contentType: string; cacheControl: string };

export type LocalBlobStore = BlobStore & {
  /** For the app's file route; `null` when absent or still being written. */
  get(pathname: string): Promise<LocalBlob | null>;
};

const LIST_PAGE_SIZE = 1000;

const sidecarSchema = z.object({ contentType: z.string(), cacheControl: z.string() });

function cacheControlOf(maxAgeSeconds: number): string {
  // Matches what Vercel's CDN sends for public blobs, plus `immutable` where the name is content-addressed.
  return maxAgeSeconds >= PUBLISHED_FILE_MAX_AGE_SECONDS ? `public, max-age=${maxAgeSeconds}, immutable` : `public, max-age=${maxAgeSeconds}`;
}

/**
 * Files under `<directory>/objects/<pathname>` with their content type and cache header in a sidecar under
 * `<directory>/meta/<pathname>.json`, kept in a separate tree so no pathname can collide with a sidecar.
 * The sidecar is written last and removed first: a file is visible only once it is complete.
 */
export function createLocalBlobStore(options: LocalBlobStoreOptions): LocalBlobStore {
  const filesBaseUrl = options.filesBaseUrl.replace(/\/+$/, "");
  const objectsRoot = join(options.directory, "objects");
  const objectPath = (pathname: string) => join(objectsRoot, pathname);
  const sidecarPath = (pathname: string) => join(options.directory, "meta", `${pathname}.json`);

  // Write to a unique temporary name and rename: a reader never sees half a file, and two writers of the
  // same content-addressed name cannot interleave their bytes.
  async function writeAtomically(path: string, data: Uint8Array | string): Promise<void> {
    await mkdir(dirname(path), { recursive: true });
    const temporary = `${path}.${randomUUID()}.tmp`;
    await writeFile(temporary, data);
    await rename(temporary, path);
  }

  function pathnameOf(urlOrPathname: string): string {
    const pathname = urlOrPathname.startsWith(`${filesBaseUrl}/`) ? decodeURIComponent(urlOrPathname.slice(filesBaseUrl.length + 1)) : urlOrPathname;
    assertValidPathname(pathname);
    return pathname;
  }

  async function readSidecar(pathname: string): Promise<z.infer<typeof sidecarSchema> | null> {
    try {
      return sidecarSchema.parse(JSON.parse(await readFile(sidecarPath(pathname), "utf8")));
    } catch (error) {
      if (isMissingFile(error)) return null;
      throw error;
    }
  }

  async function read(pathname: string, maxBytes: number): Promise<LocalBlob | null> {
    assertValidPathname(pathname);
    const sidecar = await readSidecar(pathname);
    if (!sidecar) return null;
    try {
      // The size is checked before reading, so an oversized file never enters memory.
      if ((await stat(objectPath(pathname))).size > maxBytes) throw new UploadTooLargeError(pathname, maxBytes);
      return { bytes: new Uint8Array(await readFile(objectPath(pathname))), ...sidecar };
    } catch (error) {
      if (isMissingFile(error)) return null;
      throw error;
    }
  }

  return traceBlobStore("local", {
    async put(pathname: string, bytes: Uint8Array, putOptions: PutOptions) {
      assertValidPathname(pathname);
      await writeAtomically(objectPath(pathname), bytes);
      const sidecar = { contentType: putOptions.contentType, cacheControl: cacheControlOf(putOptions.cacheControlMaxAge) };
      await writeAtomically(sidecarPath(pathname), JSON.stringify(sidecar));
      return { url: `${filesBaseUrl}/${pathname}` };
    },

    get: (pathname: string) => read(pathname, Number.POSITIVE_INFINITY),

    async delete(urlOrPathname: string | string[]) {
      for (const pathname of (Array.isArray(urlOrPathname) ? urlOrPathname : [urlOrPathname]).map(pathnameOf)) {
        await rm(sidecarPath(pathname), { force: true });
        await rm(objectPath(pathname), { force: true });
      }
    },

    async *listPathnames(prefix: string) {
      if (!prefix.endsWith("/")) throw new Error(`A listing prefix ends with "/": ${JSON.stringify(prefix)}`);
      assertValidPathname(prefix.slice(0, -1));
      let entries: import("node:fs").Dirent[];
      try {
        entries = await readdir(objectPath(prefix.slice(0, -1)), { recursive: true, withFileTypes: true });
      } catch (error) {
        if (isMissingFile(error)) return;
        throw error;
      }
      const pathnames = entries
        // A `.tmp` file is a write in progress (see writeAtomically), not a file of the store.
        .filter((entry) => entry.isFile() && !entry.name.endsWith(".tmp"))
        .map((entry) => relative(objectsRoot, join(entry.parentPath, entry.name)).split(sep).join("/"));
      for (let start = 0; start < pathnames.length; start += LIST_PAGE_SIZE) yield pathnames.slice(start, start + LIST_PAGE_SIZE);
    },

    async createUploadTarget(request: UploadTargetRequest): Promise<UploadTarget> {
      assertValidPathname(request.pathname);
      return { method: "PUT", url: options.signUploadUrl(request), headers: { "content-type": request.contentType } };
    },

    async readUpload({ pathname, maxBytes }): Promise<ReceivedUpload | null> {
      const blob = await read(pathname, maxBytes);
      return blob && { bytes: blob.bytes, contentType: blob.contentType };
    },

    async readPublished(url: string, maxBytes: number): Promise<Uint8Array | null> {
      if (!url.startsWith(`${filesBaseUrl}/`)) return null;
      const pathname = url.slice(filesBaseUrl.length + 1);
      if (!PUBLISHED_PATHNAME.test(pathname)) return null;
      return (await read(pathname, maxBytes))?.bytes ?? null;
    },
  });
}

function isMissingFile(error: unknown): boolean {
  return error instanceof Error && "code" in error && error.code === "ENOENT";
}
