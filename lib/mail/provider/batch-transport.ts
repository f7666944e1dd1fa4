import { Worker } from "node:worker_threads";

/**
 * POSTs of large JSON bodies (Postmark batches of up to 500 messages, tens of megabytes) on a worker
 * thread. The embedded database (PGlite) runs its queries synchronously on the main thread; a 20 MB upload
 * driven from there stalls whenever a query runs, and the provider sits idle waiting for bytes. On the
 * worker the upload and the answer proceed while the main thread records the previous batch. The worker
 * uses only node's http client, so it needs no build step.
 * Measured on the 100,000-recipient bench (embedded mode, 2 cores): the send phase took 36 s with the
 * upload on the main thread, 25–26 s with this worker and the body moved rather than copied.
 */
export type TransportAnswer = { status: number; text: string };

const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads");
const http = require("node:http");
const https = require("node:https");
const agents = { "http:": new http.Agent({ keepAlive: true }), "https:": new https.Agent({ keepAlive: true }) };
parentPort.on("message", ({ id, url, headers, body, length, timeoutMs }) => {
  const target = new URL(url);
  const send = target.protocol === "https:" ? https.request : http.request;
  let settled = false;
  const done = (message) => { if (!settled) { settled = true; parentPort.postMessage({ id, ...message }); } };
  const request = send(target, { method: "POST", agent: agents[target.protocol], headers: { ...headers, "content-length": length }, timeout: timeoutMs }, (response) => {
    const chunks = [];
    response.on("data", (chunk) => chunks.push(chunk));
    response.on("end", () => done({ status: response.statusCode || 0, text: Buffer.concat(chunks).toString("utf8") }));
    response.on("error", (error) => done({ error: String((error && error.message) || error) }));
  });
  request.on("timeout", () => request.destroy(new Error("No answer within " + timeoutMs + " ms.")));
  request.on("error", (error) => done({ error: String((error && error.message) || error) }));
  request.end(Buffer.from(body, 0, length));
});
`;

type Pending = { resolve(answer: TransportAnswer): void; reject(error: Error): void };

let worker: Worker | null = null;
const pending = new Map<number, Pending>();
let nextId = 0;

function transport(): Worker {
  if (worker) return worker;
  const started = new Worker(WORKER_SOURCE, { eval: true });
  started.on("message", (message: { id: number; status?: number; text?: string; error?: string }) => {
    const waiting = pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id);
    if (pending.size === 0) started.unref();
    if (message.error !== undefined) waiting.reject(new Error(message.error));
    else waiting.resolve({ status: message.status ?? 0, text: message.text ?? "" });
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
    target.postMessage({ id, url: url.href, headers, body: transferred, length, timeoutMs }, [transferred]);
  });
}
