import type { Context } from "@opentelemetry/api";
import type { Logger } from "../../base/logger";
import { contextFrom } from "../../base/tracing";
import { TOPIC, type PublishOptions, type Queue, type QueueBody } from "./queue";
import { processSpan, publishSpan } from "./tracing";
import { createQueueWorkers } from "./workers";

/**
 * Messages with a flow-control key running at once over all keys: as many as one job's lanes. The embedded
 * service has a core or two and one database connection (PGlite), so more batches at once add no
 * throughput, only a longer wait for every other query (a transactional send's among them).
 */
const FLOW_GLOBAL_PARALLELISM = 3;

/** A message published again with the same deduplication id within this window is dropped (as QStash does). */
const DEDUPLICATION_WINDOW_MS = 10 * 60_000;

type FlowItem = { topic: string; body: QueueBody; attempt: number; trace: Context };
type Flow = { waiting: FlowItem[]; active: number; parallelism: number };

/**
 * In-process dispatcher for `npm start` and tests. A failing handler is retried with exponential backoff
 * (like QStash) up to `maxAttempts`; after that the failure is logged and the message dropped — the
 * domain's start-up recovery finds work that never finished.
 * Messages published with a flow-control key (send-job batches: one key per customer) wait in a queue per
 * key once due; at most `parallelism` of a key and FLOW_GLOBAL_PARALLELISM of all keys run at once, and the
 * keys are served round-robin, so a customer with a large job does not starve another. Messages without a
 * key (webhook deliveries, starts) run as soon as they are due.
 */
export function createLocalQueue(options: { logger: Logger; maxAttempts?: number; retryBaseMs?: number; flowParallelism?: number }): Queue {
  const workers = createQueueWorkers();
  const timers = new Set<NodeJS.Timeout>();
  const dedupe = new Map<string, number>();
  let running = 0;
  const flows = new Map<string, Flow>();
  let flowWaiting = 0;
  let flowActive = 0;
  let cursor = 0;
  const flowParallelism = options.flowParallelism ?? FLOW_GLOBAL_PARALLELISM;
  let waiters: (() => void)[] = [];
  let closed = false;
  const maxAttempts = options.maxAttempts ?? 5;
  const retryBaseMs = options.retryBaseMs ?? 1000;

  const settle = () => {
    if (running === 0 && timers.size === 0 && flowWaiting === 0) {
      const done = waiters;
      waiters = [];
      for (const w of done) w();
    }
  };

  /** Starts due flow messages, one key after the other from where the last round stopped. */
  const pump = () => {
    while (!closed && flowActive < flowParallelism && flowWaiting > 0) {
      const keys = [...flows.keys()];
      let started = false;
      for (let i = 0; i < keys.length && !started; i++) {
        const key = keys[(cursor + i) % keys.length] as string;
        const flow = flows.get(key);
        if (!flow || flow.active >= flow.parallelism) continue;
        const item = flow.waiting.shift();
        if (!item) continue;
        cursor = (cursor + i + 1) % keys.length;
        started = true;
        flowWaiting--;
        flow.active++;
        flowActive++;
        void run(item.topic, item.body, item.attempt, item.trace, { key, parallelism: flow.parallelism }).finally(() => {
          flow.active--;
          flowActive--;
          if (flow.active === 0 && flow.waiting.length === 0) flows.delete(key);
          pump();
          settle();
        });
      }
      if (!started) break;
    }
  };

  // `trace`: the publisher's trace context, so every attempt is a child of the publish span.
  const schedule = (topic: string, body: QueueBody, delayMs: number, attempt: number, trace: Context, flowControl?: PublishOptions["flowControl"]) => {
    if (closed) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!flowControl) {
        void run(topic, body, attempt, trace);
        return;
      }
      let flow = flows.get(flowControl.key);
      if (!flow) {
        flow = { waiting: [], active: 0, parallelism: Math.max(1, flowControl.parallelism) };
        flows.set(flowControl.key, flow);
      }
      flow.waiting.push({ topic, body, attempt, trace });
      flowWaiting++;
      pump();
    }, delayMs);
    timers.add(timer);
  };

  const run = async (topic: string, body: QueueBody, attempt: number, trace: Context, flowControl?: PublishOptions["flowControl"]) => {
    const handler = workers.handler(topic);
    running++;
    try {
      if (!handler) throw new Error(`no handler registered for topic ${topic}`);
      await processSpan("local", topic, body, attempt, trace, () => handler(body, { attempt }));
    } catch (error) {
      if (attempt < maxAttempts) {
        options.logger.warn("queue handler failed; retrying", { topic, attempt, error: String(error) });
        schedule(topic, body, retryBaseMs * 2 ** (attempt - 1), attempt + 1, trace, flowControl);
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
        // Ids older than the window are forgotten, oldest first (the map is in publish order): one entry
        // per batch ever published otherwise stays for the life of the process.
        for (const [id, at] of dedupe) {
          if (now - at < DEDUPLICATION_WINDOW_MS) break;
          dedupe.delete(id);
        }
        if (dedupe.has(publishOptions.deduplicationId)) return;
        dedupe.set(publishOptions.deduplicationId, now);
      }
      const copy = structuredClone(body);
      await publishSpan("local", topic, copy, async (carrier) =>
        schedule(topic, copy, (publishOptions.delaySeconds ?? 0) * 1000, 1, contextFrom(carrier), publishOptions.flowControl),
      );
    },
    register: workers.register,
    handler: workers.handler,
    idle() {
      if (running === 0 && timers.size === 0 && flowWaiting === 0) return Promise.resolve();
      return new Promise((resolve) => waiters.push(resolve));
    },
    close() {
      closed = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      for (const flow of flows.values()) flow.waiting = [];
      flowWaiting = 0;
      settle();
    },
  };
}
