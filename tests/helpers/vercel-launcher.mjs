// One instance of a built Vercel function (`.vercel/output/functions/<name>.func`), run the way the platform's
// Node launcher runs it: plain Node (no tsx, no loader hooks: the built files must load as they are), the
// function's directory as the working directory, the handler from `.vc-config.json` imported on the first
// request (a cold start), and its web-handler exports (`GET`, `POST`, …) called with a `Request`.
// Usage: node vercel-launcher.mjs <function directory>; prints `LISTENING <port>` once ready and
// `LOADED <ms>` after the handler module was imported. `GET /__launcher/load` on the instance's own port
// imports the handler if needed and answers its exports (or the import error).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { serve } from "@hono/node-server";

const [funcDir] = process.argv.slice(2);
if (!funcDir) throw new Error("usage: vercel-launcher.mjs <function directory>");
const config = JSON.parse(readFileSync(join(funcDir, ".vc-config.json"), "utf8"));
if (config.launcherType !== "Nodejs") throw new Error(`unsupported launcher ${config.launcherType}`);
process.chdir(funcDir);

/**
 * The network path to Neon, stood in for: with `SMOKE_NEON_WS_PROXY` (the local WebSocket-to-TCP proxy) and
 * `SMOKE_NEON_PG` (the PostgreSQL server's host:port), the function's own copy of the Neon driver sends its
 * WebSockets to the proxy instead of to `<endpoint>.neon.tech`, like a DNS entry pointing there would. The
 * function's code is untouched: it chose the driver for its `*.neon.tech` DATABASE_URL as in production.
 */
async function routeNeonToLocalProxy() {
  const proxy = process.env.SMOKE_NEON_WS_PROXY;
  const target = process.env.SMOKE_NEON_PG;
  if (!proxy || !target) return;
  // A function without a database (the MCP route calls the API over HTTP) ships no driver: nothing to route.
  const entry = join(funcDir, "node_modules", "@neondatabase", "serverless", "index.mjs");
  if (!existsSync(entry)) return;
  const driver = await import(pathToFileURL(entry).href);
  driver.neonConfig.wsProxy = () => `${proxy}/v2?address=${target}`;
  driver.neonConfig.useSecureWebSocket = false;
  // The local server speaks plain Postgres inside the WebSocket; Neon's endpoints speak TLS there.
  driver.neonConfig.forceDisablePgSSL = true;
  driver.neonConfig.pipelineConnect = false;
  driver.neonConfig.pipelineTLS = false;
}

let loading = null;
function load() {
  loading ??= (async () => {
    await routeNeonToLocalProxy();
    const started = performance.now();
    const module = await import(pathToFileURL(join(funcDir, config.handler)).href);
    console.log(`LOADED ${(performance.now() - started).toFixed(1)}`);
    return module;
  })();
  return loading;
}

serve(
  {
    fetch: async (request) => {
      // The launcher's own check (never reached through the router): does the handler module load, and what does it export?
      if (new URL(request.url).pathname === "/__launcher/load") {
        try {
          return Response.json({ exports: Object.keys(await load()).sort() });
        } catch (error) {
          return Response.json({ error: String(error?.stack ?? error) }, { status: 500 });
        }
      }
      const module = await load();
      const handler = module[request.method];
      if (typeof handler !== "function")
        return new Response(null, {
          status: 405,
          headers: { allow: ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"].filter((m) => typeof module[m] === "function").join(", ") },
        });
      return handler(request);
    },
    port: 0,
    hostname: "127.0.0.1",
  },
  (info) => console.log(`LISTENING ${info.port}`),
);
