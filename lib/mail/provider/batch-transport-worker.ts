import http from "node:http";
import https from "node:https";
import { parentPort } from "node:worker_threads";

/** One POST the transport (`batch-transport.ts`) hands over; `body` is moved here, `length` bytes of it are sent. */
export type TransportRequest = { id: number; url: string; headers: Record<string, string>; body: ArrayBuffer; length: number; timeoutMs: number };
/** The answer to request `id`: the status and body, or why there is none (the caller cannot know whether it was processed). */
export type TransportReply = { id: number; status: number; text: string; retryAfter: string | null } | { id: number; error: string };
/**
 * A request's body moved back once the request has been written whole ("finish"): this thread allocates too
 * little to collect often, and the bodies it held (2–5 MB for a batch of 500, up to 50 MB) stayed until its
 * next GC (11–35 MB at once in the 100k bench); the main thread, which allocates all the time, drops each at
 * its next scavenge.
 */
export type TransportRelease = { released: ArrayBuffer };

const agents = { "http:": new http.Agent({ keepAlive: true }), "https:": new https.Agent({ keepAlive: true }) };

function post(request: TransportRequest, reply: (message: TransportReply) => void): void {
  const target = new URL(request.url);
  const secure = target.protocol === "https:";
  const send = secure ? https.request : http.request;
  let settled = false;
  const done = (message: TransportReply) => {
    if (settled) return;
    settled = true;
    reply(message);
  };
  const failed = (error: unknown) => done({ id: request.id, error: error instanceof Error ? error.message : String(error) });
  const outgoing = send(
    target,
    {
      method: "POST",
      agent: secure ? agents["https:"] : agents["http:"],
      headers: { ...request.headers, "content-length": request.length },
      timeout: request.timeoutMs,
    },
    (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () =>
        done({
          id: request.id,
          status: response.statusCode ?? 0,
          text: Buffer.concat(chunks).toString("utf8"),
          retryAfter: typeof response.headers["retry-after"] === "string" ? response.headers["retry-after"] : null,
        }),
      );
      response.on("error", failed);
    },
  );
  outgoing.on("finish", () => parentPort?.postMessage({ released: request.body } satisfies TransportRelease, [request.body]));
  outgoing.on("timeout", () => outgoing.destroy(new Error(`No answer within ${request.timeoutMs} ms.`)));
  outgoing.on("error", failed);
  outgoing.end(Buffer.from(request.body, 0, request.length));
}

parentPort?.on("message", (request: TransportRequest) => post(request, (message) => parentPort?.postMessage(message)));
parentPort?.postMessage("ready");
