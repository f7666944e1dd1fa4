import { Client } from "@upstash/qstash";
import { TOPIC, type PublishOptions, type Queue, type QueueBody, type QueueHandler } from "./index";

/** Production queue: QStash delivers each message to our worker route, retrying on non-2xx. */
export function createQstashQueue(options: { token: string; publicBaseUrl: string; qstashUrl?: string; retries?: number }): Queue {
  const client = new Client({ token: options.token, ...(options.qstashUrl ? { baseUrl: options.qstashUrl } : {}) });
  const handlers = new Map<string, QueueHandler>();
  return {
    kind: "qstash",
    async publish(topic: string, body: QueueBody, publishOptions: PublishOptions = {}) {
      if (!TOPIC.test(topic)) throw new Error(`invalid queue topic ${topic}`);
      await client.publishJSON({
        url: `${options.publicBaseUrl}/api/queue/${topic}`,
        body,
        retries: options.retries ?? 5,
        ...(publishOptions.delaySeconds ? { delay: publishOptions.delaySeconds } : {}),
        ...(publishOptions.deduplicationId ? { deduplicationId: publishOptions.deduplicationId } : {}),
      });
    },
    register(topic, handler) {
      handlers.set(topic, handler);
    },
    handler(topic) {
      return handlers.get(topic);
    },
    idle: () => Promise.resolve(),
    close() {},
  };
}
