import { serve } from "@hono/node-server";
import type { AddressInfo } from "node:net";
import { createPostmarkSimulator } from "./app";
import type { PostmarkSimulator, PostmarkSimulatorOptions } from "./simulator";

export type StartPostmarkSimulatorOptions = PostmarkSimulatorOptions & {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Loopback only: the control endpoints have no authentication. */
  host?: "127.0.0.1";
};

export type RunningPostmarkSimulator = {
  /** e.g. `http://127.0.0.1:43117`; the postmark client wants `requestHost: "127.0.0.1:<port>"`, `useHttps: false`. */
  url: string;
  port: number;
  simulator: PostmarkSimulator;
  close(): Promise<void>;
};

export async function startPostmarkSimulator(options: StartPostmarkSimulatorOptions = {}): Promise<RunningPostmarkSimulator> {
  const simulator = createPostmarkSimulator(options);
  const host = options.host ?? "127.0.0.1";
  let server: ReturnType<typeof serve> | undefined;
  const address = await new Promise<AddressInfo>((resolve, reject) => {
    server = serve({ fetch: simulator.fetch, port: options.port ?? 0, hostname: host }, resolve);
    server.once("error", reject);
  });
  const listening = server;
  if (!listening) throw new Error("the Postmark simulator did not start");
  // Node's server drops an idle keep-alive connection after 5 s, the same 5 s after which the postmark client's
  // agent (Node's global agent) drops it itself: a call made just then was written to a socket the server was
  // closing and failed without an answer (`unknown`, a 500 on a transactional send; tests/mail/events.http.test.ts
  // failed so after a 5 s step). The server keeps idle connections longer than the client, as Postmark's does, so
  // the client is always the side that closes.
  if ("keepAliveTimeout" in listening) listening.keepAliveTimeout = 65_000;
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    simulator,
    close: async () => {
      simulator.close();
      // Keep-alive connections from clients would otherwise hold `close` open.
      if ("closeAllConnections" in listening) listening.closeAllConnections();
      await new Promise<void>((resolve, reject) => listening.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
