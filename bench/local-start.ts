import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runningServer } from "../lib/data-dir";

/*
 * `npm start` as a new user meets it (issue 29 item 4): a fresh DATA_DIR, the server process started, timed
 * until it answers a request; its resident memory then (VmRSS of the process); stopped with SIGTERM and
 * started again on the same DATA_DIR (the restart). The first start loads the prepared PGlite snapshot
 * (lib/db/pglite-snapshot.ts, made by `npm install`) instead of running initdb and the migrations.
 */

const repoRoot = fileURLToPath(new URL("..", import.meta.url));

async function startOnce(dataDir: string) {
  const started = performance.now();
  const child = spawn(process.execPath, ["lib/start.mjs"], {
    cwd: repoRoot,
    env: { ...process.env, DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1", DATABASE_URL: "", LOG_LEVEL: "warn" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npm start exited:\n${output}`);
    if (Date.now() > deadline) throw new Error(`npm start did not answer within 120 s:\n${output}`);
    // Port 0 (a fixed or random one collided with other processes): the server names its URL in DATA_DIR/server.json.
    const url = runningServer(dataDir)?.url;
    const answered = await (url ? fetch(`${url}/mail/v1/health`, { signal: AbortSignal.timeout(2000) }) : Promise.reject(new Error("not listening"))).then(
      () => true,
      () => false,
    );
    if (answered) break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const readyMs = performance.now() - started;
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1] ?? Number.NaN);
  const cpuMs = cpuTimeMs(child.pid);
  const waitedMs = runQueueWaitMs(child.pid);
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
  return { readyMs, rssMb: rssKb / 1024, cpuMs, waitedMs };
}

/**
 * How long the server's main thread was ready to run but waited for a CPU that other processes held
 * (`/proc/<pid>/task/<pid>/schedstat`: time on a CPU, time waiting in the run queue, in ns). The start's path to
 * its first answer runs on that thread, so the wall time minus this wait bounds from above what the same start
 * takes on an idle machine (an upper bound: V8's helper threads, garbage collection and WebAssembly compilation
 * that the main thread waits for, queued behind other processes too). On a machine shared with other work the
 * wall time says more about the load than about the start; this says something about the start.
 */
function runQueueWaitMs(pid: number | undefined): number {
  const fields = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, "utf8").trim().split(" ");
  return Number(fields[1]) / 1e6;
}

/**
 * CPU time (user + system, every thread) the process used so far. On a shared machine the wall time to ready
 * grows with the load average; the CPU time a start needs does not, so both are printed.
 */
function cpuTimeMs(pid: number | undefined): number {
  // /proc/<pid>/stat after the command's closing parenthesis: fields 14 and 15 are utime and stime in clock ticks (100 per second).
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

export async function benchLocalStart(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "local-start-"));
  try {
    const first = await startOnce(dataDir);
    const restart = await startOnce(dataDir);
    const line = (run: Awaited<ReturnType<typeof startOnce>>) =>
      `ready in ${Math.round(run.readyMs)} ms (CPU ${run.cpuMs} ms; waited ${Math.round(run.waitedMs)} ms for a CPU, so at most ${Math.round(run.readyMs - run.waitedMs)} ms on an idle machine), RSS ${Math.round(run.rssMb)} MB`;
    process.stdout.write(`local start (npm start, fresh DATA_DIR): first ${line(first)}; restart ${line(restart)}; load average ${loadavg()[0]?.toFixed(1)}\n`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchLocalStart();
