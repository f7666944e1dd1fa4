import type { Clock } from "../../base/clock";
import type { RateLimitDecision, RateLimiter, RateLimitPolicy } from "./limiter";

type Window = { start: number; count: number; previousCount: number };

/** Embedded limiter: exact within one process, which is all `npm start` has. */
export function createMemoryRateLimiter(policy: RateLimitPolicy, clock: Clock): RateLimiter {
  const windows = new Map<string, Window>();
  const windowMs = policy.windowSeconds * 1000;

  return {
    policy,
    async limit(identifier: string): Promise<RateLimitDecision> {
      const now = clock.now().getTime();
      const start = Math.floor(now / windowMs) * windowMs;
      let w = windows.get(identifier);
      if (!w || w.start !== start) {
        const previousCount = w && w.start === start - windowMs ? w.count : 0;
        w = { start, count: 0, previousCount };
        windows.set(identifier, w);
      }
      const overlap = 1 - (now - start) / windowMs;
      const used = Math.floor(w.previousCount * overlap) + w.count;
      const resetSeconds = Math.max(1, Math.ceil((start + windowMs - now) / 1000));
      if (used >= policy.limit) return { allowed: false, limit: policy.limit, remaining: 0, resetSeconds };
      w.count += 1;
      return { allowed: true, limit: policy.limit, remaining: Math.max(0, policy.limit - used - 1), resetSeconds };
    },
  };
}
