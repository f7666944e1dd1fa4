import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve, type ServerType } from "@hono/node-server";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { Hono } from "hono";
import { bootRuntime } from "../lib/bootstrap";
import { seedDemo } from "../lib/seed";

/**
 * Requests/s of `GET /mail/v1/health` with auth (a DB lookup of the key), rate limiting and the envelope,
 * against a bare Hono handler, both served by @hono/node-server on loopback in this process and loaded
 * by autocannon for the same fixed duration. Target (DESIGN §6): at least 50 %.
 */
async function listen(fetch: (request: Request) => Response | Promise<Response>): Promise<{ server: ServerType; url: string }> {
  return new Promise((resolve) => {
    const server = serve({ fetch, port: 0, hostname: "127.0.0.1" }, (info) => resolve({ server, url: `http://127.0.0.1:${info.port}` }));
  });
}

const run = promisify(execFile);

/** autocannon in its own process, so the load generator does not share the server's event loop. */
async function load(url: string, headers: Record<string, string>, seconds: number): Promise<number> {
  const args = ["--no-install", "autocannon", "--json", "-c", "32", "-d", String(seconds)];
  for (const [name, value] of Object.entries(headers)) args.push("-H", `${name}=${value}`);
  const { stdout } = await run("npx", [...args, url], { maxBuffer: 16 * 1024 * 1024 });
  const result = JSON.parse(stdout) as { non2xx: number; errors: number; requests: { average: number } };
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`bench saw ${result.non2xx} non-2xx and ${result.errors} errors at ${url}`);
  return result.requests.average;
}

export async function benchHealth(seconds = 5): Promise<void> {
  const runtime = await bootRuntime({
    ...process.env,
    DATA_DIR: mkdtempSync(join(tmpdir(), "bench-health-")),
    RATE_LIMIT_PER_MINUTE: "100000000",
    LOG_LEVEL: "warn",
  });
  const demo = await seedDemo(runtime.deps);
  if (!demo.keys) throw new Error("bench needs a fresh demo customer");

  const bare = new Hono();
  bare.get("/health", (c) => c.json({ status: "ok" }));
  const bareServer = await listen(bare.fetch);
  const ourServer = await listen(runtime.app.root.fetch);
  try {
    await load(`${bareServer.url}/health`, {}, 1);
    await load(`${ourServer.url}/mail/v1/health`, { authorization: `Bearer ${demo.keys.mailFull}` }, 1);
    const auth = { authorization: `Bearer ${demo.keys.mailFull}` };
    const bareRps = await load(`${bareServer.url}/health`, {}, seconds);
    const ourRps = await load(`${ourServer.url}/mail/v1/health`, auth, seconds);
    await load(`${ourServer.url}/mail/v1/design-rules`, auth, 1);
    const readRps = await load(`${ourServer.url}/mail/v1/design-rules`, auth, seconds);
    console.log("## GET /mail/v1/health (key auth with cache, rate limit, envelope) vs a bare Hono handler");
    console.log(`bare Hono handler:          ${bareRps.toFixed(0)} req/s`);
    console.log(`GET /mail/v1/health:        ${ourRps.toFixed(0)} req/s (${runtime.database.driver})`);
    console.log(`ratio:                      ${((ourRps / bareRps) * 100).toFixed(1)} % (target ≥ 50 %)`);
    console.log(`GET /mail/v1/design-rules:  ${readRps.toFixed(0)} req/s, one database read per request (${((readRps / bareRps) * 100).toFixed(1)} % of bare)`);
  } finally {
    bareServer.server.close();
    ourServer.server.close();
    await runtime.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchHealth();
}
