import type { QueueHandler, QueueWorkers } from "./queue";

/** The registry of workers per topic that every queue implementation delegates to. */
export function createQueueWorkers(): QueueWorkers {
  const handlers = new Map<string, QueueHandler>();
  return {
    register(topic, handler) {
      handlers.set(topic, handler);
    },
    handler(topic) {
      return handlers.get(topic);
    },
  };
}
