import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** SHA-1 of @upstash/ratelimit's sliding-window limit script (`slidingWindowLimitScript`, hash in its dist). */
const SLIDING_WINDOW_LIMIT_SHA = "74740bb3d7792848093cdef586b6b6037c455fd6";

/**
 * An HTTP-level stand-in for Upstash's Redis REST API (POST / with a JSON command array, `/pipeline` with
 * several), with real SET NX / PX / GET / DEL semantics, the rate limiter's script, and an injectable
 * clock, so the production idempotency store and rate limiter run their real client code. `hang: true`
 * makes it accept connections and never answer (Upstash unreachable).
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
      // `/pipeline` (auto-pipelining) takes an array of commands and answers an array of results.
      const pipeline = (req.url ?? "/").startsWith("/pipeline");
      const parsed = JSON.parse(body) as unknown[];
      const batch = (pipeline ? (parsed as unknown[][]) : [parsed]).map((command) => command.map(String));
      const answers = batch.map((command) => {
        commands.push(command);
        try {
          return { result: execute(command) };
        } catch (error) {
          return { error: error instanceof Error ? error.message : String(error) };
        }
      });
      const failed = !pipeline && "error" in answers[0];
      res.writeHead(failed ? 400 : 200, { "content-type": "application/json" });
      res.end(JSON.stringify(pipeline ? answers : answers[0]));
    });
  });

  const live = (k: string) => {
    const entry = store.get(k);
    if (entry && entry.expiresAt !== null && entry.expiresAt <= now()) store.delete(k);
    return store.get(k);
  };

  function execute(command: string[]): unknown {
    const [name = "", key = "", ...rest] = command;
    switch (name.toLowerCase()) {
      case "set": {
        const flags = rest.slice(1).map((f) => f.toLowerCase());
        const px = flags.indexOf("px");
        const expiresAt = px >= 0 ? now() + Number(rest[px + 2]) : null;
        if (flags.includes("nx") && live(key)) return null;
        store.set(key, { value: rest[0] ?? "", expiresAt });
        return "OK";
      }
      case "get":
        return live(key)?.value ?? null;
      case "del":
        return store.delete(key) ? 1 : 0;
      case "evalsha":
        return evalScript(key, rest);
      default:
        throw new Error(`ERR unknown command '${name}'`);
    }
  }

  /**
   * The one Lua script the production rate limiter runs: @upstash/ratelimit's sliding-window limit
   * (`Ratelimit.slidingWindow`), recognised by its SHA-1 and carried out here step by step as the script
   * does it. A new library version with another script fails loudly here rather than passing unnoticed.
   */
  function evalScript(sha: string, rest: string[]): unknown {
    if (sha !== SLIDING_WINDOW_LIMIT_SHA) throw new Error("NOSCRIPT No matching script. Please use EVAL.");
    const keyCount = Number(rest[0]);
    const [currentKey = "", previousKey = "", dynamicLimitKey = ""] = rest.slice(1, 1 + keyCount);
    const [tokens, at, window, incrementBy] = rest.slice(1 + keyCount).map(Number) as [number, number, number, number];
    const dynamic = dynamicLimitKey === "" ? undefined : live(dynamicLimitKey);
    const limit = dynamic ? Number(dynamic.value) : tokens;
    const current = Number(live(currentKey)?.value ?? 0);
    const previous = Math.floor((1 - (at % window) / window) * Number(live(previousKey)?.value ?? 0));
    if (incrementBy > 0 && previous + current >= limit) return [-1, limit];
    const value = current + incrementBy;
    store.set(currentKey, { value: String(value), expiresAt: value === incrementBy ? now() + window * 2 + 1000 : (live(currentKey)?.expiresAt ?? null) });
    return [limit - (value + previous), limit];
  }

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
