import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * An HTTP-level stand-in for Upstash's Redis REST API (POST / with a JSON command array), with real
 * SET NX / PX / GET / DEL semantics and an injectable clock, so the production idempotency store runs
 * its real client code. `hang: true` makes it accept connections and never answer (Upstash unreachable).
 */
export async function startUpstashFake(options: { now?: () => number; hang?: boolean } = {}) {
  const now = options.now ?? Date.now;
  const store = new Map<string, { value: string; expiresAt: number | null }>();
  const commands: string[][] = [];
  const server: Server = createServer((req, res) => {
    if (options.hang) return;
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      const command = (JSON.parse(body) as unknown[]).map(String);
      commands.push(command);
      const [name = "", key = "", ...rest] = command;
      const live = (k: string) => {
        const entry = store.get(k);
        if (entry && entry.expiresAt !== null && entry.expiresAt <= now()) store.delete(k);
        return store.get(k);
      };
      let result: unknown = null;
      switch (name.toLowerCase()) {
        case "set": {
          const flags = rest.slice(1).map((f) => f.toLowerCase());
          const px = flags.indexOf("px");
          const expiresAt = px >= 0 ? now() + Number(rest[px + 2]) : null;
          if (flags.includes("nx") && live(key)) result = null;
          else {
            store.set(key, { value: rest[0] ?? "", expiresAt });
            result = "OK";
          }
          break;
        }
        case "get":
          result = live(key)?.value ?? null;
          break;
        case "del":
          result = store.delete(key) ? 1 : 0;
          break;
        default:
          res.writeHead(400, { "content-type": "application/json" });
          res.end(JSON.stringify({ error: `ERR unknown command '${name}'` }));
          return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ result }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    commands,
    store,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
