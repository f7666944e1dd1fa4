import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateEncryptionKey, randomToken } from "../lib/core/secrets";
import { functionNode, listFunctions, materialise } from "../tests/helpers/vercel-output";
import { startUpstashFake } from "../tests/helpers/upstash-fake";

/*
 * Cold starts of the built functions (issue 29 item 1): each function of `.vercel/output` (made by
 * `.ci/vercel-build`) is started RUNS times in a fresh Node process through the platform-like launcher
 * (tests/helpers/vercel-launcher.mjs), with the production environment against the PostgreSQL server in
 * DATABASE_URL (migrated by the release step first). Timed: from the process's spawn to its first answered
 * request (p50, p95), and that first request alone (the handler's import and the runtime's start included).
 * The request is one the function answers from the database: the admin API's customer list, the mail and
 * ads APIs' authentication of an unknown key (401 after a key lookup). The Node binary is
 * `VERCEL_FUNCTION_NODE` when set (the engines' major, as .ci/run installs it), else the one running this.
 * The floor, measured the same way and interleaved run by run: an empty function (its handler answers
 * "ok", nothing imported) through the same launcher, i.e. Node's own start, the launcher and one request.
 * Each function's p50 is also printed as a multiple of the floor's, which a loaded machine inflates far less
 * than the milliseconds (the 2-core development machine is shared).
 */

const repoRoot = fileURLToPath(new URL("..", import.meta.url));
const RUNS = Number(process.env.COLD_START_RUNS ?? 10);
const PROBES: Record<string, { path: string; auth: "admin" | "key" }> = {
  "/api/mail": { path: "/mail/v1/templates", auth: "key" },
  "/api/ads": { path: "/ads/v1/adsets", auth: "key" },
  "/api/admin": { path: "/admin/v1/customers?limit=1", auth: "admin" },
};

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

async function coldStart(dir: string, env: Record<string, string>, probe: { path: string; auth: string }, adminToken: string) {
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
    const authorization = probe.auth === "admin" ? `Bearer ${adminToken}` : `Bearer mk_live_${randomToken(24)}`;
    const response = await fetch(`http://127.0.0.1:${port}${probe.path}`, { headers: { authorization }, signal: AbortSignal.timeout(30_000) });
    await response.arrayBuffer();
    const answered = performance.now();
    if (response.status >= 500) throw new Error(`${probe.path} answered ${response.status}`);
    return { total: answered - spawned, firstRequest: answered - sent, status: response.status };
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
  try {
    process.stdout.write(`cold start: functions on Node ${spawnSync(functionNode(), ["--version"], { encoding: "utf8" }).stdout.trim()}\n`);
    const empty = emptyFunction(join(workDir, "empty.func"));
    for (const { path, dir } of listFunctions(outputDir)) {
      const probe = PROBES[path];
      if (!probe) continue;
      const deployed = join(workDir, `${path.slice(1)}.func`);
      materialise(dir, deployed, repoRoot);
      const totals: number[] = [];
      const firsts: number[] = [];
      const floors: number[] = [];
      let status = 0;
      for (let i = 0; i < RUNS; i++) {
        const run = await coldStart(deployed, env, probe, adminToken);
        totals.push(run.total);
        firsts.push(run.firstRequest);
        status = run.status;
        floors.push((await coldStart(empty, {}, { path: "/", auth: "key" }, adminToken)).total);
      }
      const f = (n: number) => `${Math.round(n)} ms`;
      const ratio = (percentile(totals, 50) / percentile(floors, 50)).toFixed(2);
      process.stdout.write(
        `cold start ${path} (${RUNS} processes, GET ${probe.path} → ${status}): spawn to first answer p50 ${f(percentile(totals, 50))}, p95 ${f(percentile(totals, 95))}; first request p50 ${f(percentile(firsts, 50))}, p95 ${f(percentile(firsts, 95))}; empty function (interleaved) p50 ${f(percentile(floors, 50))}, p95 ${f(percentile(floors, 95))}: p50 ${ratio}× the empty one\n`,
      );
    }
  } finally {
    await upstash.close();
    rmSync(workDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchColdStart();
