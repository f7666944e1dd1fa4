import type { Client } from "@upstash/qstash";
import { TOPIC, type PublishOptions, type Queue, type QueueBody } from "./queue";
import { publishSpan } from "./tracing";
import { createQueueWorkers } from "./workers";

/** Production queue: QStash delivers each message to our worker route, retrying on non-2xx. */
export function createQstashQueue(options: { token: string; publicBaseUrl: string; qstashUrl?: string; retries?: number }): Queue {
  // The SDK on the first publish, not at a cold start (most requests publish nothing).
  let client: Promise<Client> | null = null;
  const clientOnce = () =>
    (client ??= import("@upstash/qstash").then(
      ({ Client }) => new Client({ token: options.token, ...(options.qstashUrl ? { baseUrl: options.qstashUrl } : {}) }),
    ));
  const workers = createQueueWorkers();
  return {
    kind: "qstash",
    async publish(topic: string, body: QueueBody, publishOptions: PublishOptions = {}) {
      if (!TOPIC.test(topic)) throw new Error(`invalid queue topic ${topic}`);
      // The trace context rides as headers QStash forwards to the worker route (`Upstash-Forward-traceparent`
      // arrives as `traceparent`), where the request span continues it.
      await publishSpan("qstash", topic, body, async (carrier) => {
        await (await clientOnce()).publishJSON({
          url: `${options.publicBaseUrl}/api/queue/${topic}`,
          body,
          retries: options.retries ?? 5,
          ...(Object.keys(carrier).length > 0 ? { headers: carrier } : {}),
          ...(publishOptions.delaySeconds ? { delay: publishOptions.delaySeconds } : {}),
          ...(publishOptions.deduplicationId ? { deduplicationId: publishOptions.deduplicationId } : {}),
          ...(publishOptions.flowControl ? { flowControl: publishOptions.flowControl } : {}),
        });
      });
    },
    register: workers.register,
    handler: workers.handler,
    idle: () => Promise.resolve(),
    close() {},
  };
}
