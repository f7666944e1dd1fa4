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
 */

const MAX_WORKERS = 4;
/** A worker that has not said it is ready by then is given up on (fallback to the calling thread). */
const START_TIMEOUT_MS = 30_000;

type Pending = { owner: PoolWorker; resolve(bytes: Buffer): void; reject(error: Error): void };
type PoolWorker = { worker: Worker; busy: number };

let workers: Promise<PoolWorker[] | null> | null = null;
const pending = new Map<number, Pending>();
let nextId = 1;

function workerUrl(): URL {
  // Next to this module: `draw-worker.ts` when running from the TypeScript sources, `.js` once compiled.
  const extension = import.meta.url.endsWith(".ts") ? ".ts" : ".js";
  return new URL(`./draw-worker${extension}`, import.meta.url);
}

function spawn(): Promise<PoolWorker> {
  const url = workerUrl();
  // A worker does not inherit the TypeScript loader (tsx) of its parent: from sources it registers it first.
  const worker = url.pathname.endsWith(".ts")
    ? new Worker(`import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); });`, { eval: true })
    : new Worker(url);
  const entry: PoolWorker = { worker, busy: 0 };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("render worker did not start")), START_TIMEOUT_MS);
    timer.unref();
    worker.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    // A worker that dies fails its drawings, and the next drawing starts a new pool.
    worker.once("exit", () => {
      workers = null;
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
    });
  });
}

function startPool(): Promise<PoolWorker[] | null> {
  const size = Math.max(1, Math.min(MAX_WORKERS, availableParallelism()));
  return Promise.all(Array.from({ length: size }, spawn)).catch(() => null);
}

/** Draws on the least busy worker, or on this thread when the pool could not start. */
export async function drawOffThread(job: DrawJob): Promise<Buffer> {
  workers ??= startPool();
  const pool = await workers;
  if (!pool) return draw(job);
  const target = pool.reduce((least, candidate) => (candidate.busy < least.busy ? candidate : least));
  const id = nextId++;
  // A worker with drawings in flight keeps the process alive until it answers: a script awaiting a render
  // (a bench, a CLI) with nothing else on its event loop would otherwise exit with the render unfinished.
  if (target.busy++ === 0) target.worker.ref();
  return new Promise<Buffer>((resolve, reject) => {
    pending.set(id, { owner: target, resolve, reject });
    target.worker.postMessage({ id, job } satisfies DrawRequest);
  });
}

/** Workers the pool runs (0 while drawing falls back to the calling thread); for start-up logs and tests. */
export async function renderWorkerCount(): Promise<number> {
  workers ??= startPool();
  return (await workers)?.length ?? 0;
}
