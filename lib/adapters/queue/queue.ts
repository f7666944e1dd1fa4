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
  /**
   * Fair sharing: at most `parallelism` messages with the same `key` run at once (QStash's Flow-Control key;
   * the in-process dispatcher applies the same bound and serves the keys round-robin).
   */
  flowControl?: { key: string; parallelism: number };
};

export type QueueHandler = (body: QueueBody, meta: { attempt: number }) => Promise<void>;

/**
 * The workers per topic, apart from sending: both implementations need them (the in-process dispatcher
 * calls them directly, QStash through the worker route), and registering one publishes nothing.
 */
export interface QueueWorkers {
  /** Registers the worker of a topic; a second registration replaces the first. */
  register(topic: string, handler: QueueHandler): void;
  handler(topic: string): QueueHandler | undefined;
}

export interface Queue extends QueueWorkers {
  readonly kind: "local" | "qstash";
  publish(topic: string, body: QueueBody, options?: PublishOptions): Promise<void>;
  /** Resolves when no local work is pending or running (tests, graceful shutdown). QStash: at once. */
  idle(): Promise<void>;
  close(): void;
}

/** Topic names are URL path segments. */
export const TOPIC = /^[a-z][a-z0-9-]{0,62}$/;
