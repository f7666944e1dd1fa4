/**
 * Background work (send-job batches, webhook deliveries, delayed starts). Delivery is at least once in
 * both implementations: a handler must be idempotent (a batch delivered twice sends nothing twice).
 *
 * Production: QStash publishes to `${PUBLIC_BASE_URL}/api/queue/<topic>`, where `createQueueRoutes`
 * verifies `Upstash-Signature` on the raw body and runs the handler. Embedded: an in-process dispatcher
 * calls the same handlers; unfinished work in the database is re-published on start-up by its domain.
 */
export type QueueBody = Record<string, unknown>;

export type PublishOptions = {
  /** Run no earlier than this many seconds from now (scheduled jobs, retry backoff). */
  delaySeconds?: number;
  /** Same id within QStash's deduplication window = published once. */
  deduplicationId?: string;
};

export type QueueHandler = (body: QueueBody, meta: { attempt: number }) => Promise<void>;

export interface Queue {
  readonly kind: "local" | "qstash";
  publish(topic: string, body: QueueBody, options?: PublishOptions): Promise<void>;
  /** Registers the worker of a topic (both implementations need it: QStash calls it through the route). */
  register(topic: string, handler: QueueHandler): void;
  handler(topic: string): QueueHandler | undefined;
  /** Resolves when no local work is pending or running (tests, graceful shutdown). QStash: at once. */
  idle(): Promise<void>;
  close(): void;
}

/** Topic names are URL path segments. */
export const TOPIC = /^[a-z][a-z0-9-]{0,62}$/;

export { createLocalQueue } from "./local";
export { createQstashQueue } from "./qstash";
