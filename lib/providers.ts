import { join } from "node:path";
import type { Config } from "./core/config";
import type { CoreDeps } from "./core/context";
import type { Clock } from "./base/clock";
import type { RunningGraphSimulator } from "./ads/platform/simulator/server";
import type { RunningPostmarkSimulator, StartPostmarkSimulatorOptions } from "./mail/provider/simulator/server";

/** The core deps of one process with what the runtime adds: the admin credentials and the chosen providers. */
export type RuntimeDeps = CoreDeps & {
  adminToken: string;
  /** The admin CLI's credential for this process (`DATA_DIR/server.json`); absent where no CLI can reach it (Vercel, tests). */
  cliToken?: string;
  providers: Providers;
};

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

const POSTMARK_PRODUCTION_URL = "https://api.postmarkapp.com";
const GRAPH_PRODUCTION_URL = "https://graph.facebook.com/v25.0";

/**
 * The simulators are imported only when embedded: the Vercel functions' bundle (`FUNCTION_BUNDLE`, lib/commands/build.ts)
 * has this branch removed, so no simulator (nor its sample data) ships in a function.
 * `stateDir`: where the embedded simulators keep their state across restarts (`npm start`: DATA_DIR);
 * unset, they live in memory only (tests). `postmarkSimulator`: the embedded Postmark simulator's bounds (a test
 * whose job outgrows the default 10,000 tracked messages widens them).
 */
export async function startProviders(
  config: Config,
  options: { clock?: Clock; embedded: boolean; stateDir?: string; postmarkSimulator?: Pick<StartPostmarkSimulatorOptions, "maxTrackedMessages"> },
): Promise<Providers> {
  if (process.env.FUNCTION_BUNDLE === "1") return withSimulators(config, null, null);
  const postmarkState = options.stateDir ? join(options.stateDir, "postmark-simulator.jsonl") : undefined;
  const graphState = options.stateDir ? join(options.stateDir, "graph-simulator.json") : undefined;
  const postmarkSimulator =
    !config.POSTMARK_API_URL && options.embedded
      ? await (await import("./mail/provider/simulator/server")).startPostmarkSimulator({
          ...options.postmarkSimulator,
          servers: [],
          clock: options.clock,
          stateFile: postmarkState,
        })
      : null;
  const graphSimulator =
    !config.GRAPH_API_URL && options.embedded
      ? await (await import("./ads/platform/simulator/server")).startGraphSimulator({ clock: options.clock, stateFile: graphState })
      : null;
  return withSimulators(config, postmarkSimulator, graphSimulator);
}

function withSimulators(config: Config, postmarkSimulator: RunningPostmarkSimulator | null, graphSimulator: RunningGraphSimulator | null): Providers {
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
