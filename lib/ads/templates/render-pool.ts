import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { draw, type DrawJob } from "./draw";
import type { DrawRequest, DrawResponse } from "./draw-worker";

/*
 * Drawing is CPU-bound and mostly synchronous (satori's layout, resvg's rasterising), so it runs on a small
 * pool of worker threads: the request thread stays free for other requests, and the three ratios of a
 * render are drawn in parallel. One worker per core, at most four, started on first use and not keeping
 * the process alive. Where no worker can start (a bundle without the worker file), drawing falls back to
 * the calling thread, with the same result.
 *
 * A worker holds its own heap with satori, resvg, sharp and the fonts loaded (tens of MB each): a pool with
 * nothing to draw for `idleReleaseMs` ends its workers, and the next drawing starts a new pool (about the
 * cost of a first render). A server that rendered once does not keep that memory while it waits.
 */

const MAX_WORKERS = 4;
/** A worker that has not said it is ready by then is given up on (fallback to the calling thread). */
const START_TIMEOUT_MS = 30_000;
/** A pool without a drawing in flight for this long ends its workers (see `setIdleRelease`). */
let idleReleaseMs = 15_000;

type Pending = { owner: PoolWorker; resolve(bytes: Buffer): void; reject(error: Error): void };
type PoolWorker = { worker: Worker; busy: number };
type Pool = { workers: Promise<PoolWorker[] | null>; idle: NodeJS.Timeout | null };

let current: Pool | null = null;
/** Worker threads started and not yet exited, whichever pool they belonged to. */
const running = new Set<Worker>();
const pending = new Map<number, Pending>();
let nextId = 1;

function workerUrl(): URL {
  // Next to this module: `draw-worker.ts` when running from the TypeScript sources, `.js` once compiled.
  const extension = import.meta.url.endsWith(".ts") ? ".ts" : ".js";
  return new URL(`./draw-worker${extension}`, import.meta.url);
}

function spawn(pool: Pool): Promise<PoolWorker> {
  const url = workerUrl();
  // A worker does not inherit the TypeScript loader (tsx) of its parent: from sources it registers it first.
  const worker = url.pathname.endsWith(".ts")
    ? new Worker(`import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); });`, { eval: true })
    : new Worker(url);
  const entry: PoolWorker = { worker, busy: 0 };
  running.add(worker);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("render worker did not start")), START_TIMEOUT_MS);
    timer.unref();
    worker.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    // A worker that dies fails its drawings, and the next drawing starts a new pool.
    worker.once("exit", () => {
      running.delete(worker);
      if (current === pool) release(pool);
      for (const [id, waiting] of pending) {
        if (waiting.owner !== entry) continue;
        pending.delete(id);
        waiting.reject(new Error("the render worker stopped"));
      }
    });
    worker.on("message", (message: DrawResponse | "ready") => {
      if (message === "ready") {
        clearTimeout(timer);
        // Unreferenced once its listeners are in place (a listener added later references the port again).
        worker.unref();
        resolve(entry);
        return;
      }
      entry.busy--;
      // Idle again: it no longer keeps the process alive (see `drawOffThread`).
      if (entry.busy === 0) worker.unref();
      const waiting = pending.get(message.id);
      pending.delete(message.id);
      if ("error" in message) waiting?.reject(new Error(message.error));
      else waiting?.resolve(Buffer.from(message.bytes.buffer, message.bytes.byteOffset, message.bytes.byteLength));
      void armIdleRelease(pool);
    });
  });
}

function startPool(): Pool {
  const size = Math.max(1, Math.min(MAX_WORKERS, availableParallelism()));
  const pool: Pool = { workers: Promise.resolve(null), idle: null };
  pool.workers = Promise.all(Array.from({ length: size }, () => spawn(pool))).catch(() => null);
  return pool;
}

/** Forgets the pool (the next drawing starts another) and ends its workers. */
function release(pool: Pool): void {
  if (current === pool) current = null;
  if (pool.idle) clearTimeout(pool.idle);
  pool.idle = null;
  void pool.workers.then((workers) => {
    for (const entry of workers ?? []) void entry.worker.terminate();
  });
}

/** With no drawing in flight, the pool is released after `idleReleaseMs` unless another drawing comes first. */
async function armIdleRelease(pool: Pool): Promise<void> {
  const workers = await pool.workers;
  if (!workers || current !== pool || workers.some((entry) => entry.busy > 0)) return;
  if (pool.idle) clearTimeout(pool.idle);
  pool.idle = setTimeout(() => release(pool), idleReleaseMs);
  pool.idle.unref();
}

/** Draws on the least busy worker, or on this thread when the pool could not start. */
export async function drawOffThread(job: DrawJob): Promise<Buffer> {
  current ??= startPool();
  const pool = current;
  if (pool.idle) clearTimeout(pool.idle);
  pool.idle = null;
  const workers = await pool.workers;
  if (!workers) return draw(job);
  const target = workers.reduce((least, candidate) => (candidate.busy < least.busy ? candidate : least));
  const id = nextId++;
  // A worker with drawings in flight keeps the process alive until it answers: a script awaiting a render
  // (a bench, a CLI) with nothing else on its event loop would otherwise exit with the render unfinished.
  if (target.busy++ === 0) target.worker.ref();
  return new Promise<Buffer>((resolve, reject) => {
    pending.set(id, { owner: target, resolve, reject });
    target.worker.postMessage({ id, job } satisfies DrawRequest);
  });
}

/**
 * Worker threads alive: those of the current pool once it has started, plus any of a released pool not yet
 * exited (0 while drawing falls back to the calling thread, or once an idle release has ended them). For
 * logs, benches and tests.
 */
export async function renderWorkerCount(): Promise<number> {
  if (current) await current.workers;
  return running.size;
}

/**
 * How long a pool waits with nothing to draw before it ends its workers; applies from the next idle moment.
 * Returns the previous setting. Tests shorten it to see the release happen (and put it back: test files may
 * share this module); the server keeps the default.
 */
export function setIdleRelease(ms: number): number {
  const previous = idleReleaseMs;
  idleReleaseMs = ms;
  return previous;
}
