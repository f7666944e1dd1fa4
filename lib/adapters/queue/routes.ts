import { Receiver } from "@upstash/qstash";
import { Hono } from "hono";
import type { Logger } from "../../core/logger";
import type { Queue } from "./index";

/**
 * `/api/queue/<topic>`: the worker endpoint QStash calls. The `Upstash-Signature` JWT is verified on the
 * raw body (and the URL) before anything runs; without signing keys (embedded mode) the route refuses
 * everything, because local work never comes over HTTP.
 */
export function createQueueRoutes(queue: Queue, options: { currentSigningKey?: string; nextSigningKey?: string; publicBaseUrl: string; logger: Logger }): Hono {
  const app = new Hono();
  const receiver =
    options.currentSigningKey && options.nextSigningKey
      ? new Receiver({ currentSigningKey: options.currentSigningKey, nextSigningKey: options.nextSigningKey })
      : null;
  app.post("/:topic", async (c) => {
    const topic = c.req.param("topic");
    const raw = await c.req.text();
    const signature = c.req.header("upstash-signature");
    if (!receiver || !signature) return c.json({ error: { code: "unauthorized", message: "Missing or unverifiable Upstash-Signature.", details: [] } }, 401);
    const valid = await receiver.verify({ signature, body: raw, url: `${options.publicBaseUrl}/api/queue/${topic}` }).catch(() => false);
    if (!valid) return c.json({ error: { code: "unauthorized", message: "Invalid Upstash-Signature.", details: [] } }, 401);
    const handler = queue.handler(topic);
    if (!handler) return c.json({ error: { code: "not_found", message: `No worker for topic ${topic}.`, details: [] } }, 404);
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return c.json({ error: { code: "bad_request", message: "Body is not JSON.", details: [] } }, 400);
    }
    const attempt = Number(c.req.header("upstash-retried") ?? "0") + 1;
    try {
      await handler(body, { attempt });
    } catch (error) {
      options.logger.error("queue worker failed", { topic, attempt, error: String(error) });
      return c.json({ error: { code: "internal_error", message: "Worker failed; QStash will retry.", details: [] } }, 500);
    }
    return c.json({ data: { ok: true } }, 200);
  });
  return app;
}
