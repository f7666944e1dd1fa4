import { Ratelimit } from "@upstash/ratelimit";
import { Redis } from "@upstash/redis";
import type { Clock } from "../../base/clock";
import type { Logger } from "../../base/logger";
import type { RateLimitDecision, RateLimiter, RateLimitPolicy } from "./limiter";

/**
 * Production limiter on Upstash. If Upstash does not answer within `timeoutMs` (or errors) we let the
 * request through and return `null`, so the response carries no made-up rate-limit headers.
 */
export function createUpstashRateLimiter(
  policy: RateLimitPolicy,
  redis: { url: string; token: string },
  options: { timeoutMs: number; clock: Clock; logger: Logger },
): RateLimiter {
  const client = new Redis({ url: redis.url, token: redis.token, retry: { retries: 0 }, enableTelemetry: false });
  const ratelimit = new Ratelimit({
    redis: client,
    limiter: Ratelimit.slidingWindow(policy.limit, `${policy.windowSeconds} s`),
    prefix: "rl",
    analytics: false,
    timeout: 0,
  });

  return {
    policy,
    async limit(identifier: string): Promise<RateLimitDecision | null> {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), options.timeoutMs);
      });
      try {
        const result = await Promise.race([ratelimit.limit(identifier), timeout]);
        if (result === null) {
          options.logger.warn("rate limiter timed out; failing open", { timeout_ms: options.timeoutMs });
          return null;
        }
        const resetSeconds = Math.max(1, Math.ceil((result.reset - options.clock.now().getTime()) / 1000));
        return { allowed: result.success, limit: result.limit, remaining: result.remaining, resetSeconds };
      } catch (error) {
        options.logger.warn("rate limiter unavailable; failing open", { error: String(error) });
        return null;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
