import { benchDataDir } from "./data-dir";
import { serve, type ServerType } from "@hono/node-server";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { eq } from "drizzle-orm";
import { Hono } from "hono";
import { mailDesignRules } from "../lib/db/schema";
import { bootRuntime } from "../lib/bootstrap";
import { seedDemo } from "../lib/seed";

/**
 * Requests/s of our read endpoints against bare Hono handlers, all served by @hono/node-server on loopback
 * in this process and loaded by autocannon for the same fixed duration. Target (DESIGN §6): a read endpoint
 * with auth, rate limit and a DB read at least 50 % of a bare Hono handler.
 * - `GET /mail/v1/health`: key auth (cached), rate limit, envelope; against a bare handler answering JSON.
 * - `GET /mail/v1/design-rules`: the same plus one database read per request; against a bare handler making
 *   the same read through the same drizzle connection. That is the ratio the target is judged on: it measures
 *   what our stack adds. Against the bare handler without a read it would measure the database (on PGlite
 *   a query costs ~200 µs of CPU on the event loop, several times a bare Hono request), so that figure is
 *   printed for information only.
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
    DATA_DIR: benchDataDir("bench-health-"),
    RATE_LIMIT_PER_MINUTE: "100000000",
    LOG_LEVEL: "warn",
  });
  const demo = await seedDemo(runtime.deps, runtime.app.adsDeps);
  if (!demo.keys) throw new Error("bench needs a fresh demo customer");

  const bare = new Hono();
  bare.get("/health", (c) => c.json({ status: "ok" }));
  bare.get("/design-rules", async (c) => {
    const [row] = await runtime.deps.db.select().from(mailDesignRules).where(eq(mailDesignRules.customerId, demo.customerId));
    return c.json({ data: row?.overrides ?? {} });
  });
  const bareServer = await listen(bare.fetch);
  const ourServer = await listen(runtime.app.root.fetch);
  try {
    await load(`${bareServer.url}/health`, {}, 1);
    await load(`${ourServer.url}/mail/v1/health`, { authorization: `Bearer ${demo.keys.mailFull}` }, 1);
    const auth = { authorization: `Bearer ${demo.keys.mailFull}` };
    const bareRps = await load(`${bareServer.url}/health`, {}, seconds);
    const ourRps = await load(`${ourServer.url}/mail/v1/health`, auth, seconds);
    await load(`${bareServer.url}/design-rules`, {}, 1);
    const bareReadRps = await load(`${bareServer.url}/design-rules`, {}, seconds);
    await load(`${ourServer.url}/mail/v1/design-rules`, auth, 1);
    const readRps = await load(`${ourServer.url}/mail/v1/design-rules`, auth, seconds);
    console.log("## GET /mail/v1/health (key auth with cache, rate limit, envelope) vs a bare Hono handler");
    console.log(`bare Hono handler:          ${bareRps.toFixed(0)} req/s`);
    console.log(`GET /mail/v1/health:        ${ourRps.toFixed(0)} req/s (${runtime.database.driver})`);
    console.log(
      `ratio:                      ${((ourRps / bareRps) * 100).toFixed(1)} % (no database read; DESIGN §6's ≥ 50 % is judged on the read endpoint below)`,
    );
    console.log(`## GET /mail/v1/design-rules (the same plus one database read, ${runtime.database.driver}) vs a bare Hono handler making the same read`);
    console.log(`bare Hono handler + read:   ${bareReadRps.toFixed(0)} req/s`);
    console.log(`GET /mail/v1/design-rules:  ${readRps.toFixed(0)} req/s`);
    console.log(
      `ratio:                      ${((readRps / bareReadRps) * 100).toFixed(1)} % (target ≥ 50 %); ${((readRps / bareRps) * 100).toFixed(1)} % of the bare handler without a read`,
    );
  } finally {
    bareServer.server.close();
    ourServer.server.close();
    await runtime.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchHealth();
}
