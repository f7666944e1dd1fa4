import type { CoreDeps } from "../core/context";
import { LruCache } from "../core/lru-cache";
import type { BlobStore, LocalBlobStore } from "../adapters/blob";
import { createPostmarkProvider, type PostmarkProvider } from "./provider/postmark";
import { tracePostmarkProvider } from "./provider/postmark-tracing";
import { createPostmarkSuppressions, type PostmarkSuppressions } from "./provider/postmark-suppressions";
import { createPostmarkAccount, type PostmarkAccount } from "./provider/postmark-account";
import type { BatchWriter } from "./send-jobs/batch-payload";
import type { AddressSet } from "./send-jobs/address-set";

/** A job's duplicate set as one sorted set in memory, and how many stored segments it was made of. */
export type KnownAddressSet = { set: AddressSet; segments: number };

/**
 * A customer's monthly count in this process (`usage/meter.ts`): the reading of `month` as read at `readAt`
 * (ms of the injected clock) plus what this process recorded since, the room held by sends in flight, the
 * commits of sent mail under way (`writing`: their message ids; `unlisted`: a count of those without ids,
 * which a reading waits for, `drained` woken when none is), and the reading under way (one at a time;
 * `readTally`: what was tallied while it ran).
 */
export type MonthlyReading = {
  month: string;
  value: number;
  readAt: number;
  inFlight: number;
  writing: Set<readonly string[]>;
  unlisted: number;
  drained: (() => void)[];
  reading: Promise<void> | null;
  readTally: number;
};

/**
 * What the send path keeps between calls in this process. Each is an optimisation only: an empty cache
 * gives the same answers (see the owners: `send-jobs/batch-writers.ts`, `send-jobs/recipients.ts`,
 * `usage/meter.ts`), so two processes, or two sets of deps in one process, never disagree on a result.
 * One exception: `monthlyReadings` also holds the monthly room reserved by this process's sends in flight.
 */
export type MailCaches = {
  /** Batch writers of recently sending jobs, by job, run and stream. */
  batchWriters: LruCache<BatchWriter>;
  /** Duplicate sets of the jobs recipients were last added to, by job. */
  addressSets: LruCache<KnownAddressSet>;
  /** The monthly accepted-live count per customer, read at most every few seconds of the injected clock. */
  monthlyReadings: Map<string, MonthlyReading>;
};

/** The files of image assets: the process's one blob store, chosen by the runtime (`lib/blob-storage.ts`). */
export type AssetStorage = {
  blobs: BlobStore;
  /** Embedded mode only: the same store, for the app's own upload route and public files route. */
  local: LocalBlobStore | null;
  /** HMAC key of the embedded signed upload URLs. */
  uploadSecret: string;
};

/** What the mail service needs beyond the core: both Postmark clients, the asset store and its caches. */
export type MailDeps = CoreDeps & {
  /** Sending and the Messages API (`POST /email`, `/email/batch`, `GET /messages/outbound`). */
  postmark: PostmarkProvider;
  /** Postmark's suppression API (reactivation). */
  postmarkSuppressions: PostmarkSuppressions;
  /** Postmark's Account API (sender signatures, domains) with the operator's account token. */
  postmarkAccount: PostmarkAccount;
  /** The files of image assets (Vercel Blob, or DATA_DIR/blobs served by the app). */
  assets: AssetStorage;
  caches: MailCaches;
};

/**
 * What the runtime hands over: its core deps with where Postmark is (`POSTMARK_API_URL` or the embedded
 * simulator; the runtime decides, the service only needs the origin).
 */
type MailDepsInput = CoreDeps & { providers: { postmarkApiUrl: string } };

/**
 * The one factory of the mail service's deps, called once per process: by the root app (`createRootApp`,
 * lib/runtime.ts, which also registers the workers) and by the Vercel functions that serve mail alone
 * (lib/functions/). `assets`: the process's one asset store (lib/blob-storage.ts).
 */
export function createMailDeps(input: MailDepsInput, assets: AssetStorage): MailDeps {
  const { providers, ...core } = input;
  return {
    ...core,
    postmark: tracePostmarkProvider(createPostmarkProvider({ apiUrl: providers.postmarkApiUrl }), core.providerMetrics),
    postmarkSuppressions: createPostmarkSuppressions({ apiUrl: providers.postmarkApiUrl }),
    postmarkAccount: createPostmarkAccount({ apiUrl: providers.postmarkApiUrl }),
    assets,
    caches: { batchWriters: new LruCache(8), addressSets: new LruCache(4), monthlyReadings: new Map() },
  };
}
