import { inSpan, SpanKind } from "../../base/tracing";
import type { BlobStore } from "./store";

/**
 * A client span per blob-store operation (`blob put`, `blob delete`, …) with the store kind and, for single
 * files, the pathname (content hashes and upload ids, no personal data). Listing is a sweep's paging loop
 * and stays untraced. The store's other members (the local store's file server) pass through unchanged.
 */
export function traceBlobStore<T extends BlobStore>(kind: "local" | "vercel", store: T): T {
  const span = <R>(operation: string, pathname: string | undefined, run: () => Promise<R>) =>
    inSpan(
      `blob ${operation}`,
      {
        kind: SpanKind.CLIENT,
        attributes: { "app.blob.store": kind, "app.blob.operation": operation, ...(pathname ? { "app.blob.pathname": pathname } : {}) },
      },
      run,
    );
  return {
    ...store,
    put: (pathname, bytes, options) => span("put", pathname, () => store.put(pathname, bytes, options)),
    delete: (target) => span("delete", typeof target === "string" ? target : undefined, () => store.delete(target)),
    createUploadTarget: (request) => span("upload-target", request.pathname, () => store.createUploadTarget(request)),
    readUpload: (request) => span("read-upload", request.pathname, () => store.readUpload(request)),
    readPublished: (url, maxBytes) => span("read-published", undefined, () => store.readPublished(url, maxBytes)),
  };
}
