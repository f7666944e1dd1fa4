import { benchDataDir } from "./data-dir";
import { serve, type ServerType } from "@hono/node-server";
import { execFile } from "node:child_process";
import { loadavg } from "node:os";
import { promisify } from "node:util";
import { eq } from "drizzle-orm";
import { Hono } from "hono";
import { mailDesignRules, mailSettings } from "../lib/db/schema";
import { getUsage } from "../lib/mail/usage/service";
import { bootRuntime } from "../lib/bootstrap";
import { seedDemo } from "../lib/seed";

/**
 * Our request path against bare Hono handlers, all served by @hono/node-server on loopback in this process and
 * loaded by autocannon (its own process) for the same fixed duration, side by side in one run:
 * - `GET /health` (the root's liveness answer: no key, no database) against a bare handler answering JSON.
 *   Target ≥ 50 % of bare Hono's requests/s: what every request pays before its route's own work.
 * - `GET /mail/v1/health`: key auth (cached), rate limit, request id, envelope; against the same bare handler.
 * - `GET /mail/v1/usage`, a small authenticated read: p50/p99 latency and requests/s against a bare handler
 *   making the same query (`getUsage` through the same drizzle connection); what our stack adds to a read.
 * - `GET /mail/v1/design-rules`: one database read, against a bare handler making the same read (DESIGN §6's
 *   read-endpoint ratio).
 * Each pair is loaded twice, alternating, and the load average is printed with it.
 */
async function listen(fetch: (request: Request) => Response | Promise<Response>): Promise<{ server: ServerType; url: string }> {
  return new Promise((resolve) => {
    const server = serve({ fetch, port: 0, hostname: "127.0.0.1" }, (info) => resolve({ server, url: `http://127.0.0.1:${info.port}` }));
  });
}

const run = promisify(execFile);

type Load = { rps: number; p50: number; p99: number };

/** autocannon in its own process, so the load generator does not share the server's event loop. */
async function load(url: string, headers: Record<string, string>, seconds: number): Promise<Load> {
  const args = ["--no-install", "autocannon", "--json", "-c", "32", "-d", String(seconds)];
  for (const [name, value] of Object.entries(headers)) args.push("-H", `${name}=${value}`);
  const { stdout } = await run("npx", [...args, url], { maxBuffer: 16 * 1024 * 1024 });
  const result = JSON.parse(stdout) as { non2xx: number; errors: number; requests: { average: number }; latency: { p50: number; p99: number } };
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`bench saw ${result.non2xx} non-2xx and ${result.errors} errors at ${url}`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
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
  const [settings] = await runtime.deps.db.select().from(mailSettings).where(eq(mailSettings.customerId, demo.customerId));
  const limits = { monthlyLimit: settings?.monthlyLimit ?? 0, maxPerJob: settings?.maxPerJob ?? 0 };

  const bare = new Hono();
  bare.get("/health", (c) => c.json({ status: "ok" }));
  bare.get("/usage", async (c) => c.json({ data: await getUsage(runtime.deps.db, demo.customerId, limits, new Date()) }));
  bare.get("/design-rules", async (c) => {
    const [row] = await runtime.deps.db.select().from(mailDesignRules).where(eq(mailDesignRules.customerId, demo.customerId));
    return c.json({ data: row?.overrides ?? {} });
  });
  const bareServer = await listen(bare.fetch);
  // As `npm start` serves it: the runtime's fetch (schema gate, then the root app).
  const ourServer = await listen(runtime.fetch);
  const auth = { authorization: `Bearer ${demo.keys.mailFull}` };
  const pairs = [
    { label: "GET /health (root, no key)", ours: `${ourServer.url}/health`, bare: `${bareServer.url}/health`, headers: {}, target: "≥ 50 %" },
    {
      label: "GET /mail/v1/health (key, rate limit, envelope)",
      ours: `${ourServer.url}/mail/v1/health`,
      bare: `${bareServer.url}/health`,
      headers: auth,
      target: "",
    },
    { label: "GET /mail/v1/usage vs bare + getUsage", ours: `${ourServer.url}/mail/v1/usage`, bare: `${bareServer.url}/usage`, headers: auth, target: "" },
    {
      label: "GET /mail/v1/design-rules vs bare + the same read",
      ours: `${ourServer.url}/mail/v1/design-rules`,
      bare: `${bareServer.url}/design-rules`,
      headers: auth,
      target: "≥ 50 %",
    },
  ];
  const fmt = (l: Load) => `${l.rps.toFixed(0)} req/s, p50 ${l.p50.toFixed(1)} ms, p99 ${l.p99.toFixed(1)} ms`;
  try {
    console.log(`## Request path vs bare Hono (${runtime.database.driver}; 32 connections, ${seconds} s each, two alternating rounds)`);
    for (const pair of pairs) {
      await load(pair.bare, {}, 1);
      await load(pair.ours, pair.headers, 1);
      for (const round of [1, 2]) {
        const bareLoad = await load(pair.bare, {}, seconds);
        const ourLoad = await load(pair.ours, pair.headers, seconds);
        console.log(
          `${pair.label}, round ${round}: ours ${fmt(ourLoad)}; bare ${fmt(bareLoad)}; ratio ${((ourLoad.rps / bareLoad.rps) * 100).toFixed(1)} %${pair.target ? ` (target ${pair.target})` : ""}; load average ${loadavg()[0]?.toFixed(1)}`,
        );
      }
    }
  } finally {
    bareServer.server.close();
    ourServer.server.close();
    await runtime.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchHealth();
}
