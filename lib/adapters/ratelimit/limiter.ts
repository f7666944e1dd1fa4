/**
 * Per-customer request limits. Both implementations use the same policy: a sliding window of
 * `limit` requests per `windowSeconds`, approximated like Upstash's `slidingWindow` (the previous
 * fixed window weighted by how much of it still overlaps).
 */
export type RateLimitPolicy = { limit: number; windowSeconds: number };

export type RateLimitDecision = {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the current window resets (also the `Retry-After` on a 429). */
  resetSeconds: number;
};

export type RateLimiter = {
  readonly policy: RateLimitPolicy;
  /** `null` when the limiter is unavailable: the caller fails open and sends no rate-limit headers. */
  limit(identifier: string): Promise<RateLimitDecision | null>;
};
