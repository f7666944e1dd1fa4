import { parentPort } from "node:worker_threads";
import { draw, type DrawJob } from "./draw";

/** A render worker: draws the jobs the pool (`render-pool.ts`) sends, one message in, one out. */
export type DrawRequest = { id: number; job: DrawJob };
export type DrawResponse = { id: number; bytes: Uint8Array } | { id: number; error: string };

parentPort?.on("message", (request: DrawRequest) => {
  draw(request.job).then(
    (bytes) => {
      const copy = new Uint8Array(bytes);
      parentPort?.postMessage({ id: request.id, bytes: copy } satisfies DrawResponse, [copy.buffer]);
    },
    (error: unknown) => parentPort?.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) } satisfies DrawResponse),
  );
});
parentPort?.postMessage("ready");
