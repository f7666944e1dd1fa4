import { Receiver } from "@upstash/qstash";
import { Hono } from "hono";
import { handleError } from "./app";
import type { AppEnv } from "./context";
import { ApiError, BadRequestError } from "./errors";
import type { Logger } from "../base/logger";
import type { Queue } from "../adapters/queue/queue";
import { processSpan } from "../adapters/queue/tracing";

export const QUEUE_PATH = "/api/queue";
/** QStash's message size on its smallest plan; our messages carry ids only (a few hundred bytes). */
export const QUEUE_MAX_BODY_BYTES = 1024 * 1024;

/**
 * `/api/queue/<topic>`: the worker endpoint QStash calls. The `Upstash-Signature` JWT is verified on the
 * raw body (and the URL) before anything runs; without signing keys (embedded mode) the route refuses
 * everything, because local work never comes over HTTP.
 */
export function createQueueRoutes(
  queue: Queue,
  options: { currentSigningKey?: string; nextSigningKey?: string; publicBaseUrl: string; logger: Logger },
): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const receiver =
    options.currentSigningKey && options.nextSigningKey
      ? new Receiver({ currentSigningKey: options.currentSigningKey, nextSigningKey: options.nextSigningKey })
      : null;
  app.post("/:topic", async (c) => {
    const topic = c.req.param("topic");
    const raw = await c.req.text();
    const signature = c.req.header("upstash-signature");
    if (!receiver || !signature) throw new ApiError("unauthorized", "Missing or unverifiable Upstash-Signature.");
    const valid = await receiver.verify({ signature, body: raw, url: `${options.publicBaseUrl}/api/queue/${topic}` }).catch(() => false);
    if (!valid) throw new ApiError("unauthorized", "Invalid Upstash-Signature.");
    const handler = queue.handler(topic);
    if (!handler) throw new ApiError("not_found", `No worker for topic ${topic}.`);
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      throw new BadRequestError("Body is not JSON.");
    }
    const attempt = Number(c.req.header("upstash-retried") ?? "0") + 1;
    try {
      // A child of the request span, which continued the publisher's trace from the forwarded `traceparent`.
      await processSpan("qstash", topic, body, attempt, undefined, () => handler(body, { attempt }));
    } catch (error) {
      options.logger.error("queue worker failed", { topic, attempt, error: String(error) });
      throw new ApiError("internal_error", "Worker failed; QStash will retry.");
    }
    return c.json({ data: { ok: true } }, 200);
  });
  // Its own handler too, so the route answers in the envelope wherever it is mounted.
  app.onError(handleError(options.logger));
  return app;
}
