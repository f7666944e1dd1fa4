import type { CoreDeps } from "../core/context";
import { createSafeFetch, type SafeFetch } from "../core/outbound/safe-fetch";
import type { BlobStore } from "../adapters/blob";
import { createGraphClient, type GraphClient } from "./platform";
import { AccountThrottle } from "./platform/throttle";

/** What the ads service needs beyond the core: the platform client and the one SSRF-safe fetch. */
export type AdsDeps = CoreDeps & {
  graph: GraphClient;
  /** For image URLs customers hand us (DESIGN §4): https only, public addresses only, pinned DNS. */
  safeFetch: SafeFetch;
  /** Test-only switch mirrored from the config, for URL checks that do not fetch (video URLs). */
  allowLoopbackOutbound: boolean;
  /** Where rendered creatives and template previews are published (Vercel Blob, or files served by the app). */
  blobs: BlobStore;
};

/** What the runtime hands over: its core deps with where the Graph API is (`GRAPH_API_URL` or the embedded simulator). */
type AdsDepsInput = CoreDeps & { providers: { graphApiUrl: string } };

/**
 * The one factory of the ads service's deps, called once per process: by the root app (`createRootApp`,
 * lib/runtime.ts, which also registers the workers) and by the Vercel functions that serve ads alone
 * (lib/functions/). `blobs`: the process's one blob store (lib/blob-storage.ts). The Graph client points at
 * `GRAPH_API_URL` or the embedded simulator. Loopback and the extra CA are test-only settings and off unless
 * configured.
 */
export function createAdsDeps(input: AdsDepsInput, blobs: BlobStore): AdsDeps {
  const { providers, ...core } = input;
  const allowLoopbackOutbound = core.config.ALLOW_LOOPBACK_OUTBOUND;
  return {
    ...core,
    // Rate-limit pacing is per ad account, kept for the life of these deps (one set per process), on the injected clock.
    graph: createGraphClient({
      baseUrl: providers.graphApiUrl,
      logger: core.logger,
      throttle: new AccountThrottle(),
      now: () => core.clock.now().getTime(),
      metrics: core.providerMetrics,
    }),
    safeFetch: createSafeFetch({ allowLoopbackForTests: allowLoopbackOutbound, trustedCa: core.config.OUTBOUND_TRUSTED_CA }),
    allowLoopbackOutbound,
    blobs,
  };
}
