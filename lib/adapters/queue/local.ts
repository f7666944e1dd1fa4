import type { Context } from "@opentelemetry/api";
import type { Logger } from "../../core/logger";
import { contextFrom } from "../../core/tracing";
import { TOPIC, type PublishOptions, type Queue, type QueueBody } from "./queue";
import { processSpan, publishSpan } from "./tracing";
import { createQueueWorkers } from "./workers";

/**
 * In-process dispatcher for `npm start` and tests. A failing handler is retried with exponential backoff
 * (like QStash) up to `maxAttempts`; after that the failure is logged and the message dropped — the
 * domain's start-up recovery finds work that never finished.
 */
export function createLocalQueue(options: { logger: Logger; maxAttempts?: number; retryBaseMs?: number }): Queue {
  const workers = createQueueWorkers();
  const timers = new Set<NodeJS.Timeout>();
  const dedupe = new Map<string, number>();
  let running = 0;
  let waiters: (() => void)[] = [];
  let closed = false;
  const maxAttempts = options.maxAttempts ?? 5;
  const retryBaseMs = options.retryBaseMs ?? 1000;

  const settle = () => {
    if (running === 0 && timers.size === 0) {
      const done = waiters;
      waiters = [];
      for (const w of done) w();
    }
  };

  // `trace`: the publisher's trace context, so every attempt is a child of the publish span.
  const schedule = (topic: string, body: QueueBody, delayMs: number, attempt: number, trace: Context) => {
    if (closed) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      void run(topic, body, attempt, trace);
    }, delayMs);
    timers.add(timer);
  };

  const run = async (topic: string, body: QueueBody, attempt: number, trace: Context) => {
    const handler = workers.handler(topic);
    running++;
    try {
      if (!handler) throw new Error(`no handler registered for topic ${topic}`);
      await processSpan("local", topic, body, attempt, trace, () => handler(body, { attempt }));
    } catch (error) {
      if (attempt < maxAttempts) {
        options.logger.warn("queue handler failed; retrying", { topic, attempt, error: String(error) });
        schedule(topic, body, retryBaseMs * 2 ** (attempt - 1), attempt + 1, trace);
      } else {
        options.logger.error("queue handler failed for good", { topic, attempt, error: String(error) });
      }
    } finally {
      running--;
      settle();
    }
  };

  return {
    kind: "local",
    async publish(topic: string, body: QueueBody, publishOptions: PublishOptions = {}) {
      if (!TOPIC.test(topic)) throw new Error(`invalid queue topic ${topic}`);
      if (publishOptions.deduplicationId) {
        const now = Date.now();
        const seen = dedupe.get(publishOptions.deduplicationId);
        if (seen !== undefined && now - seen < 10 * 60_000) return;
        dedupe.set(publishOptions.deduplicationId, now);
      }
      const copy = structuredClone(body);
      await publishSpan("local", topic, copy, async (carrier) => schedule(topic, copy, (publishOptions.delaySeconds ?? 0) * 1000, 1, contextFrom(carrier)));
    },
    register: workers.register,
    handler: workers.handler,
    idle() {
      if (running === 0 && timers.size === 0) return Promise.resolve();
      return new Promise((resolve) => waiters.push(resolve));
    },
    close() {
      closed = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      settle();
    },
  };
}
