import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { GRAPH_API_VERSION } from "../types";
import { createGraphSimulator, type GraphSimulator, type GraphSimulatorOptions } from "./app";

export type RunningGraphSimulator = {
  /** Origin, e.g. `http://127.0.0.1:41234`; control endpoints live under `/__sim/`. */
  url: string;
  /** What the Graph client takes as `baseUrl`: the origin plus `/v25.0`. */
  graphUrl: string;
  port: number;
  simulator: GraphSimulator;
  close(): Promise<void>;
};

/** The simulator over HTTP on loopback; `port: 0` picks a free port. */
export async function startGraphSimulator(options: GraphSimulatorOptions & { port?: number; host?: string } = {}): Promise<RunningGraphSimulator> {
  const { port = 0, host = "127.0.0.1", ...simulatorOptions } = options;
  const simulator = createGraphSimulator(simulatorOptions);
  const { server, info } = await new Promise<{ server: ReturnType<typeof serve>; info: AddressInfo }>((resolve, reject) => {
    const started = serve({ fetch: simulator.app.fetch, port, hostname: host }, (address) => resolve({ server: started, info: address }));
    started.once("error", reject);
  });
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${info.port}`;
  return {
    url,
    graphUrl: `${url}/${GRAPH_API_VERSION}`,
    port: info.port,
    simulator,
    close: () =>
      new Promise<void>((resolve, reject) => {
        simulator.persist();
        server.close((error) => (error ? reject(error) : resolve()));
        // Keep-alive sockets of the client would otherwise hold close() open.
        if ("closeAllConnections" in server && typeof server.closeAllConnections === "function") server.closeAllConnections();
      }),
  };
}
