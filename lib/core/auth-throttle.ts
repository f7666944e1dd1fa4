import type { RateLimiter } from "../adapters/ratelimit";
import type { Clock } from "../base/clock";
import { ApiError } from "./errors";

/**
 * Failed authentication (a missing, wrong or revoked API key or operator token) is limited per client
 * address, so keys cannot be guessed at line rate. Failures are counted in the rate limiter (Upstash in
 * production, so every instance sees the same count); once an address is over the limit, every request
 * from it that needs authentication answers 429 until the window resets, valid key or not, so a guess
 * that happens to be right is not told apart either. Each instance remembers the block it learnt, which
 * keeps valid traffic free of a second limiter call.
 */
export type AuthThrottle = {
  /** Seconds until the address may try again; 0 when it may now. */
  retryAfter(address: string): number;
  /** Counts a failure; returns the seconds to wait when that failure went over the limit, else 0. */
  failed(address: string): Promise<number>;
};

/** Addresses remembered as blocked per instance; the oldest go first beyond this. */
const MAX_BLOCKED = 10_000;

export function createAuthThrottle(limiter: RateLimiter, clock: Clock): AuthThrottle {
  const blocked = new Map<string, number>();
  return {
    retryAfter(address) {
      const until = blocked.get(address);
      if (until === undefined) return 0;
      const left = until - clock.now().getTime();
      if (left <= 0) {
        blocked.delete(address);
        return 0;
      }
      return Math.ceil(left / 1000);
    },
    async failed(address) {
      const decision = await limiter.limit(`auth-failures:${address}`);
      if (!decision || decision.allowed) return 0;
      blocked.delete(address);
      blocked.set(address, clock.now().getTime() + decision.resetSeconds * 1000);
      if (blocked.size > MAX_BLOCKED) blocked.delete(blocked.keys().next().value as string);
      return decision.resetSeconds;
    },
  };
}

export function tooManyAuthFailures(retryAfterSeconds: number, limit: number): ApiError {
  return new ApiError(
    "rate_limited",
    `Too many requests with a missing or invalid key from this address (more than ${limit} a minute); retry after ${retryAfterSeconds} s.`,
    {
      headers: { "Retry-After": String(retryAfterSeconds) },
    },
  );
}
