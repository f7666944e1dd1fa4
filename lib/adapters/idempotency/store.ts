/**
 * Idempotency records, per DESIGN §4: one record per (customer, route, key), claimed atomically by the
 * first request, completed with its response, kept 24 h. Postgres is the embedded default (durable across
 * restarts); Upstash Redis (`SET NX`) is the production store.
 */
export type StoredResponse = { status: number; headers: Record<string, string>; body: string };

export type IdempotencyScope = { customerId: string; route: string; key: string };

export type ClaimResult = { kind: "claimed" } | { kind: "in_progress" } | { kind: "mismatch" } | { kind: "replay"; response: StoredResponse };

export type IdempotencyStore = {
  claim(scope: IdempotencyScope, fingerprint: string, now: Date): Promise<ClaimResult>;
  complete(scope: IdempotencyScope, response: StoredResponse, now: Date): Promise<void>;
  /** Frees the key when the first request ended in a way a retry should be allowed to redo. */
  release(scope: IdempotencyScope): Promise<void>;
  /** Deletes the records expired at `now` and answers how many (the hourly cron); a store whose keys expire by themselves answers 0. */
  deleteExpired(now: Date): Promise<number>;
};

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
