import type { CoreDeps } from "../core/context";
import { createSafeFetch, type SafeFetch } from "../core/outbound/safe-fetch";
import type { BlobStore } from "../adapters/blob";
import { createGraphClient, type GraphClient } from "./platform";
import { sharedThrottle } from "./platform/throttle";

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

/** What the runtime hands over: where the Graph API is (`GRAPH_API_URL` or the embedded simulator) and the process's one blob store. */
export type AdsDepsInput = CoreDeps & { providers: { graphApiUrl: string }; blobs: BlobStore };

/**
 * Built once per runtime (`createServices` in `lib/runtime.ts`), which also registers the workers: the Graph
 * client points at `GRAPH_API_URL` or the embedded simulator. Loopback and the extra CA are test-only
 * settings and off unless configured.
 */
export function createAdsDeps(input: AdsDepsInput): AdsDeps {
  const { providers, blobs, ...core } = input;
  const allowLoopbackOutbound = core.config.ALLOW_LOOPBACK_OUTBOUND;
  return {
    ...core,
    // Rate-limit pacing is per ad account and process: every deps object of one Graph endpoint shares it.
    graph: createGraphClient({
      baseUrl: providers.graphApiUrl,
      logger: core.logger,
      throttle: sharedThrottle(providers.graphApiUrl),
      now: () => core.clock.now().getTime(),
    }),
    safeFetch: createSafeFetch({ allowLoopbackForTests: allowLoopbackOutbound, trustedCa: core.config.OUTBOUND_TRUSTED_CA }),
    allowLoopbackOutbound,
    blobs,
  };
}
