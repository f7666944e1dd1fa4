import type { BlobStore } from "../adapters/blob";
import type { CoreDeps } from "../core/context";
import type { Providers } from "../providers";

/** What the operator API needs: the core, its token, the simulators' addresses (embedded mode) and the blob store. */
export type AdminDeps = CoreDeps & { adminToken: string; providers: Pick<Providers, "graphApiUrl" | "postmarkSimulator">; blobs?: BlobStore };
