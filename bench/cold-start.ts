import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createCustomer } from "../lib/admin/customers";
import { issueApiKey } from "../lib/core/keys";
import { generateEncryptionKey, randomToken } from "../lib/core/secrets";
import { openDatabase } from "../lib/db/client";
import { functionNode, listFunctions, materialise } from "../tests/helpers/vercel-output";
import { startUpstashFake } from "../tests/helpers/upstash-fake";

/*
 * Cold starts of the built functions: each function of `.vercel/output` (made by
 * `.ci/vercel-build`) is started RUNS times in a fresh Node process through the platform-like launcher
 * (tests/helpers/vercel-launcher.mjs), with the production environment against the PostgreSQL server in
 * DATABASE_URL (migrated by the release step first). Timed: from the process's spawn to its first answered
 * request (p50, p95), and that first request alone (the handler's import and the runtime's start included).
 * The requests are ones the function answers from the database: the admin API's customer list; for the mail
 * and ads APIs, the authentication of an unknown key (401 after a key lookup: no route group is loaded) and
 * a list with a valid key of a customer made here (the route group's import included). Also printed: the
 * CPU time the process had used at its first answer (/proc), which the machine's load inflates far less
 * than the wall time. The Node binary is
 * `VERCEL_FUNCTION_NODE` when set (the engines' major, as .ci/run installs it), else the one running this.
 * The floor, measured the same way and interleaved run by run: an empty function (its handler answers
 * "ok", nothing imported) through the same launcher, i.e. Node's own start, the launcher and one request.
 * Each function's p50 is also printed as a multiple of the floor's, which a loaded machine inflates far less
 * than the milliseconds (the 2-core development machine is shared).
 */

const repoRoot = fileURLToPath(new URL("..", import.meta.url));
const RUNS = Number(process.env.COLD_START_RUNS ?? 10);
type Probe = { path: string; auth: "admin" | "unknown-key" | "mail-key" | "ads-key" };
const PROBES: Record<string, Probe[]> = {
  "/api/mail": [
    { path: "/mail/v1/templates", auth: "unknown-key" },
    { path: "/mail/v1/templates", auth: "mail-key" },
  ],
  "/api/ads": [
    { path: "/ads/v1/adsets", auth: "unknown-key" },
    { path: "/ads/v1/adsets", auth: "ads-key" },
  ],
  "/api/admin": [{ path: "/admin/v1/customers?limit=1", auth: "admin" }],
};

/** CPU time (user + system) a process has used, from /proc (Linux; clock ticks of 10 ms); NaN elsewhere. */
function cpuMsOf(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** A function whose handler imports nothing and answers "ok": the floor every cold start pays. */
function emptyFunction(dir: string): string {
  mkdirSync(join(dir, "api"), { recursive: true });
  writeFileSync(join(dir, ".vc-config.json"), JSON.stringify({ handler: "api/empty.js", runtime: "nodejs24.x", launcherType: "Nodejs" }));
  writeFileSync(join(dir, "api", "empty.js"), 'export const GET = () => new Response("ok");\n');
  return dir;
}

async function coldStart(dir: string, env: Record<string, string>, probe: Probe, keys: Record<Probe["auth"], string>) {
  const spawned = performance.now();
  const child = spawn(functionNode(), [join(repoRoot, "tests", "helpers", "vercel-launcher.mjs"), dir], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString("utf8");
        const listening = /LISTENING (\d+)/.exec(out);
        if (listening) resolve(Number(listening[1]));
      });
      child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
      child.once("exit", (code) => reject(new Error(`the function exited (${code}):\n${out}`)));
    });
    const sent = performance.now();
    const authorization = `Bearer ${keys[probe.auth]}`;
    const response = await fetch(`http://127.0.0.1:${port}${probe.path}`, { headers: { authorization }, signal: AbortSignal.timeout(30_000) });
    await response.arrayBuffer();
    const answered = performance.now();
    const cpu = cpuMsOf(child.pid);
    if (response.status >= 500) throw new Error(`${probe.path} answered ${response.status}`);
    return { total: answered - spawned, firstRequest: answered - sent, status: response.status, cpu };
  } finally {
    child.kill("SIGKILL");
  }
}

export async function benchColdStart(): Promise<void> {
  const outputDir = join(repoRoot, ".vercel", "output");
  if (!existsSync(join(outputDir, "config.json"))) {
    process.stdout.write("cold start: skipped (no .vercel/output; run .ci/vercel-build first)\n");
    return;
  }
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    process.stdout.write("cold start: skipped (DATABASE_URL unset: the functions need a migrated PostgreSQL server)\n");
    return;
  }
  const upstash = await startUpstashFake();
  const workDir = mkdtempSync(join(tmpdir(), "cold-start-"));
  const adminToken = randomToken(32);
  const env = {
    VERCEL: "1",
    VERCEL_ENV: "production",
    NODE_ENV: "production",
    PUBLIC_BASE_URL: "https://cold-start.example.com",
    DATABASE_URL: databaseUrl,
    ADMIN_TOKEN: adminToken,
    ENCRYPTION_KEY: generateEncryptionKey(),
    CRON_SECRET: randomToken(24),
    UPSTASH_REDIS_REST_URL: upstash.url,
    UPSTASH_REDIS_REST_TOKEN: "cold-start-token",
    QSTASH_TOKEN: "cold-start-token",
    QSTASH_CURRENT_SIGNING_KEY: `sig_${randomToken(20)}`,
    QSTASH_NEXT_SIGNING_KEY: `sig_${randomToken(20)}`,
    BLOB_READ_WRITE_TOKEN: `vercel_blob_rw_coldstart_${randomToken(16).replace(/[^A-Za-z0-9]/g, "")}`,
    LOG_LEVEL: "warn",
  };
  // A customer with a key of each service, so a probe can also pass authentication and reach its route group.
  const database = await openDatabase({ url: databaseUrl });
  const customer = await createCustomer(database.db, { name: "Cold start" }, new Date());
  const keys: Record<Probe["auth"], string> = {
    admin: adminToken,
    "unknown-key": `mk_live_${randomToken(24)}`,
    "mail-key": (await issueApiKey(database.db, { customerId: customer.id, service: "mail", scope: "full" })).key,
    "ads-key": (await issueApiKey(database.db, { customerId: customer.id, service: "ads", scope: "full" })).key,
  };
  await database.close();
  try {
    process.stdout.write(`cold start: functions on Node ${spawnSync(functionNode(), ["--version"], { encoding: "utf8" }).stdout.trim()}\n`);
    const empty = emptyFunction(join(workDir, "empty.func"));
    for (const { path, dir } of listFunctions(outputDir)) {
      const deployed = join(workDir, `${path.slice(1)}.func`);
      if (PROBES[path]) materialise(dir, deployed, repoRoot);
      for (const probe of PROBES[path] ?? []) {
        const cpus: number[] = [];
        const totals: number[] = [];
        const firsts: number[] = [];
        const floors: number[] = [];
        let status = 0;
        for (let i = 0; i < RUNS; i++) {
          const run = await coldStart(deployed, env, probe, keys);
          totals.push(run.total);
          cpus.push(run.cpu);
          firsts.push(run.firstRequest);
          status = run.status;
          floors.push((await coldStart(empty, {}, { path: "/", auth: "unknown-key" }, keys)).total);
        }
        const f = (n: number) => `${Math.round(n)} ms`;
        const ratio = (percentile(totals, 50) / percentile(floors, 50)).toFixed(2);
        process.stdout.write(
          `cold start ${path} (${RUNS} processes, GET ${probe.path} → ${status}): spawn to first answer p50 ${f(percentile(totals, 50))}, p95 ${f(percentile(totals, 95))}; first request p50 ${f(percentile(firsts, 50))}, p95 ${f(percentile(firsts, 95))}; empty function (interleaved) p50 ${f(percentile(floors, 50))}, p95 ${f(percentile(floors, 95))}: p50 ${ratio}× the empty one; CPU at the first answer p50 ${f(percentile(cpus, 50))}\n`,
        );
      }
    }
  } finally {
    await upstash.close();
    rmSync(workDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchColdStart();
