import type { Config } from "./core/config";
import type { Clock } from "./core/clock";
import { startGraphSimulator, type RunningGraphSimulator } from "./ads/platform/simulator/server";
import { startPostmarkSimulator, type RunningPostmarkSimulator } from "./mail/provider/simulator/server";

/**
 * Where the two upstream platforms are. Production: `POSTMARK_API_URL` / `GRAPH_API_URL` (or the real
 * defaults). Embedded (`npm start`, tests): the simulators, started here on loopback ports, with their
 * handles exposed so seeding and tests can register servers, ad accounts and inspect what was sent.
 */
export type Providers = {
  /** Origin of the Postmark API, e.g. `https://api.postmarkapp.com` or `http://127.0.0.1:41000`. */
  postmarkApiUrl: string;
  /** Graph API base including the version, e.g. `https://graph.facebook.com/v25.0`. */
  graphApiUrl: string;
  postmarkSimulator: RunningPostmarkSimulator | null;
  graphSimulator: RunningGraphSimulator | null;
  close(): Promise<void>;
};

export const POSTMARK_PRODUCTION_URL = "https://api.postmarkapp.com";
export const GRAPH_PRODUCTION_URL = "https://graph.facebook.com/v25.0";

export async function startProviders(config: Config, options: { clock?: Clock; embedded: boolean }): Promise<Providers> {
  const postmarkSimulator = !config.POSTMARK_API_URL && options.embedded ? await startPostmarkSimulator({ servers: [], clock: options.clock }) : null;
  const graphSimulator = !config.GRAPH_API_URL && options.embedded ? await startGraphSimulator({ clock: options.clock }) : null;
  return {
    postmarkApiUrl: config.POSTMARK_API_URL ?? postmarkSimulator?.url ?? POSTMARK_PRODUCTION_URL,
    graphApiUrl: config.GRAPH_API_URL ?? graphSimulator?.graphUrl ?? GRAPH_PRODUCTION_URL,
    postmarkSimulator,
    graphSimulator,
    close: async () => {
      await postmarkSimulator?.close();
      await graphSimulator?.close();
    },
  };
}
