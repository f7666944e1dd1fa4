import { createServer, type IncomingMessage } from "node:http";
import { connect, type AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { pipeline } from "node:stream";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import ipaddr from "ipaddr.js";
import { createWebSocketStream, WebSocketServer } from "ws";

/**
 * TEST ONLY: the WebSocket-to-TCP proxy Neon runs in front of its databases, small enough for CI. With
 * `NEON_LOCAL_PROXY=<host:port>` the app reaches a plain PostgreSQL server through `@neondatabase/serverless`,
 * so CI exercises the driver production uses. Protocol of the driver's `wsProxy` option:
 * `ws://<proxy>/v2?address=<host>:<port>`, then raw Postgres protocol bytes in binary messages both ways.
 *
 * Invariants: a target is a loopback IP literal or `localhost` (anything else is refused with 403 before
 * the upgrade, so the proxy can never be turned into a relay); a connection ends on both sides as soon
 * as either side closes or fails.
 *
 *   npx tsx lib/db/neon-local-proxy.ts [--host 127.0.0.1] [--port 0]
 *
 * prints `NEON_LOCAL_PROXY=<host:port>` once listening; port 0 picks a free port.
 */
export type NeonLocalProxy = {
  address: string;
  /** Connections relayed so far: tests show that the Neon driver really went this way. */
  readonly connections: number;
  close(): Promise<void>;
};

export type ProxyTarget = { host: string; port: number };

/** The Postgres server a `/v2?address=host:port` request asks for, or null when it is not allowed. */
export function loopbackTarget(requestUrl: string): ProxyTarget | null {
  const url = new URL(requestUrl, "ws://proxy");
  const address = url.searchParams.get("address");
  if (url.pathname !== "/v2" || !address) return null;
  const match = /^\[?([^\]]+)\]?:(\d{1,5})$/.exec(address);
  if (!match) return null;
  const [, host, portText] = match;
  const port = Number(portText);
  if (port < 1 || port > 65535) return null;
  // `localhost` is pinned to 127.0.0.1 rather than resolved: a hosts file must not widen the allowance.
  if (host === "localhost") return { host: "127.0.0.1", port };
  if (!ipaddr.isValid(host)) return null;
  const parsed = ipaddr.process(host);
  return parsed.range() === "loopback" ? { host: parsed.toString(), port } : null;
}

export async function startNeonLocalProxy(options: { host?: string; port?: number } = {}): Promise<NeonLocalProxy> {
  const wss = new WebSocketServer({ noServer: true });
  let connections = 0;
  const server = createServer((_request, response) => response.writeHead(426).end());
  server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const target = loopbackTarget(request.url ?? "");
    if (!target) {
      socket.end("HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      connections++;
      const client = createWebSocketStream(ws);
      const postgres = connect({ host: target.host, port: target.port, noDelay: true });
      pipeline(client, postgres, client, () => {
        postgres.destroy();
        client.destroy();
      });
    });
  });
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    address: `${host}:${port}`,
    get connections() {
      return connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const ws of wss.clients) ws.terminate();
        wss.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { host: { type: "string", default: "127.0.0.1" }, port: { type: "string", default: "0" } } });
  const proxy = await startNeonLocalProxy({ host: values.host, port: Number(values.port) });
  process.stdout.write(`NEON_LOCAL_PROXY=${proxy.address}\n`);
  const stop = () => void proxy.close().then(() => process.exit(0));
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}
