import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runningServer } from "../lib/data-dir";
import { npmStartCommand } from "./npm-start";

/*
 * `npm start` as a new user meets it: a fresh DATA_DIR, the server process started, timed until it answers a
 * request; its resident memory then (VmRSS of the process, worker threads included), when it prints its banner,
 * when it prints "Demo data: ready", and at rest 60 s after that; stopped with SIGTERM and started again
 * on the same DATA_DIR (the restart), measured the same way. The first start loads the prepared PGlite snapshot
 * (lib/db/pglite-snapshot.ts, made by `npm install`) instead of running initdb and the migrations.
 */

const repoRoot = fileURLToPath(new URL("..", import.meta.url));

const rssMbOf = (pid: number | undefined) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? Number.NaN) / 1024;

/** Target: the embedded server at rest 60 s after its start has written the Demo's data (the "Demo data: ready" line). */
const REST_AFTER_MS = 60_000;
const DEMO_READY_WITHIN_MS = 300_000;
const REST_TARGET_MB = 400;

async function startOnce(dataDir: string) {
  const started = performance.now();
  const command = npmStartCommand();
  const child = spawn(process.execPath, command.args, {
    cwd: repoRoot,
    env: { ...process.env, ...command.env, DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1", DATABASE_URL: "", LOG_LEVEL: "warn" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  // Resident memory when the banner and the "Demo data: ready" line are printed (read as the line arrives).
  const marks: { bannerMb?: number; bannerMs?: number; demoReadyMb?: number; demoReadyMs?: number } = {};
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
    if (marks.bannerMb === undefined && output.includes("middleware is running")) {
      marks.bannerMb = rssMbOf(child.pid);
      marks.bannerMs = performance.now() - started;
    }
    if (marks.demoReadyMb === undefined && /^Demo data: ready/m.test(output)) {
      marks.demoReadyMb = rssMbOf(child.pid);
      marks.demoReadyMs = performance.now() - started;
    }
  });
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
  const rssMb = rssMbOf(child.pid);
  const cpuMs = cpuTimeMs(child.pid);
  const waitedMs = runQueueWaitMs(child.pid);
  // Then left alone: until the Demo's data is written (a loaded machine takes longer) and 60 s more, the
  // peak on the way and the memory at rest.
  let peakMb = rssMb;
  const demoDeadline = performance.now() + DEMO_READY_WITHIN_MS;
  while (marks.demoReadyMs === undefined || performance.now() - started < marks.demoReadyMs + REST_AFTER_MS) {
    if (child.exitCode !== null) throw new Error(`npm start exited:\n${output}`);
    if (marks.demoReadyMs === undefined && performance.now() > demoDeadline)
      throw new Error(`no "Demo data: ready" within ${DEMO_READY_WITHIN_MS / 1000} s:\n${output}`);
    peakMb = Math.max(peakMb, rssMbOf(child.pid));
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const restMb = rssMbOf(child.pid);
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
  return { readyMs, rssMb, cpuMs, waitedMs, ...marks, peakMb, restMb };
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
    const memory = (run: Awaited<ReturnType<typeof startOnce>>) =>
      `RSS at the banner ${Math.round(run.bannerMb ?? Number.NaN)} MB (${((run.bannerMs ?? Number.NaN) / 1000).toFixed(1)} s), at "Demo data: ready" ${Math.round(run.demoReadyMb ?? Number.NaN)} MB (${((run.demoReadyMs ?? Number.NaN) / 1000).toFixed(1)} s), peak ${Math.round(run.peakMb)} MB, at rest ${REST_AFTER_MS / 1000} s after that ${Math.round(run.restMb)} MB (target ≤ ${REST_TARGET_MB} MB)`;
    process.stdout.write(`local start (npm start, fresh DATA_DIR): first ${line(first)}; restart ${line(restart)}; load average ${loadavg()[0]?.toFixed(1)}\n`);
    process.stdout.write(`local start memory, first start: ${memory(first)}\n`);
    process.stdout.write(`local start memory, restart:     ${memory(restart)}; load average ${loadavg()[0]?.toFixed(1)}\n`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchLocalStart();
