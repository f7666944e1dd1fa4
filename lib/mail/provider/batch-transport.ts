import { Worker } from "node:worker_threads";
import type { TransportRelease, TransportReply, TransportRequest } from "./batch-transport-worker";

/**
 * POSTs of large JSON bodies (Postmark batches of up to 500 messages, tens of megabytes) on a worker
 * thread. The embedded database (PGlite) runs its queries synchronously on the main thread; a 20 MB upload
 * driven from there stalls whenever a query runs, and the provider sits idle waiting for bytes. On the
 * worker (`batch-transport-worker.ts`) the upload and the answer proceed while the main thread records the
 * previous batch.
 * Measured on the 100,000-recipient bench (embedded mode, 2 cores): the send phase took 36 s with the
 * upload on the main thread, 25–26 s with this worker and the body moved rather than copied.
 */
export type TransportAnswer = { status: number; text: string; retryAfter: string | null };

type Pending = { resolve(answer: TransportAnswer): void; reject(error: Error): void };

let worker: Worker | null = null;
const pending = new Map<number, Pending>();
let nextId = 0;

function workerUrl(): URL {
  // Next to this module: `batch-transport-worker.ts` from the TypeScript sources, `.js` in the functions bundle.
  const extension = import.meta.url.endsWith(".ts") ? ".ts" : ".js";
  return new URL(`./batch-transport-worker${extension}`, import.meta.url);
}

function transport(): Worker {
  if (worker) return worker;
  const url = workerUrl();
  // A worker does not inherit the TypeScript loader (tsx) of its parent: from sources it registers it first.
  // Requests posted before the module has loaded wait in the worker's port.
  const started = url.pathname.endsWith(".ts")
    ? new Worker(`import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); });`, { eval: true })
    : new Worker(url);
  started.on("message", (message: TransportReply | TransportRelease | "ready") => {
    // A sent body moved back (see `TransportRelease`): dropped here.
    if (message === "ready" || "released" in message) return;
    const waiting = pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id);
    if (pending.size === 0) started.unref();
    if ("error" in message) waiting.reject(new Error(message.error));
    else waiting.resolve({ status: message.status, text: message.text, retryAfter: message.retryAfter });
  });
  started.on("error", (error) => {
    for (const waiting of pending.values()) waiting.reject(error);
    pending.clear();
    worker = null;
  });
  worker = started;
  return started;
}

/** Rejects when no answer arrived in time or the connection failed: the caller cannot know whether it was processed. */
export function postJsonOffThread(url: URL, headers: Record<string, string>, body: Uint8Array, timeoutMs: number): Promise<TransportAnswer> {
  const id = nextId++;
  // A body that owns its memory (larger than node's buffer pool, at offset 0) is moved to the worker
  // without a copy and is unusable here afterwards; anything else is copied first.
  const owned = body.byteOffset === 0 && body.buffer instanceof ArrayBuffer && body.buffer.byteLength > Buffer.poolSize;
  const transferred = owned ? (body.buffer as ArrayBuffer) : new Uint8Array(body).buffer;
  const length = body.byteLength;
  const target = transport();
  // An idle worker must not keep the process alive (tests, CLI runs); one with requests in flight must.
  target.ref();
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    const request: TransportRequest = { id, url: url.href, headers, body: transferred, length, timeoutMs };
    target.postMessage(request, [transferred]);
  });
}
