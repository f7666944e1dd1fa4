import { createPostgresIdempotencyStore, createUpstashIdempotencyStore } from "../adapters/idempotency";
import { createLocalQueue, createQstashQueue } from "../adapters/queue";
import { createMemoryRateLimiter, createUpstashRateLimiter } from "../adapters/ratelimit";
import type { Database } from "../db/client";
import type { PriorityGate } from "../db/priority";
import { createProviderMetrics } from "./provider-metrics";
import { PrincipalCache } from "./api-keys";
import { createAuthThrottle } from "./auth-throttle";
import { createRefusalAudit } from "./refusal-audit";
import type { Clock } from "../base/clock";
import type { Config } from "./config";
import type { CoreDeps } from "./context";
import type { Logger } from "../base/logger";
import { SecretBox } from "./secrets";

/** How long an authenticated key is trusted without a database lookup (see `PrincipalCache`). */
const PRINCIPAL_TTL_MS = 10_000;

/**
 * Chooses the adapters in one place: Upstash when its variables are set, the embedded defaults
 * otherwise. Tests call this with PGlite and a manual clock and get the same wiring as `npm start`.
 */
export function createCoreDeps(input: {
  config: Config;
  db: Database;
  /** The gate `db` runs behind (`DatabaseHandle.priority`). */
  priority: PriorityGate;
  clock: Clock;
  logger: Logger;
  encryptionKey: string;
}): CoreDeps {
  const { config, db, clock, logger } = input;
  const policy = { limit: config.RATE_LIMIT_PER_MINUTE, windowSeconds: 60 };
  const authPolicy = { limit: config.AUTH_FAILURES_PER_MINUTE, windowSeconds: 60 };
  const publicBaseUrl = (config.PUBLIC_BASE_URL ?? `http://localhost:${config.PORT}`).replace(/\/+$/, "");
  const upstash =
    config.UPSTASH_REDIS_REST_URL && config.UPSTASH_REDIS_REST_TOKEN ? { url: config.UPSTASH_REDIS_REST_URL, token: config.UPSTASH_REDIS_REST_TOKEN } : null;
  const limiter = (limits: typeof policy) =>
    upstash ? createUpstashRateLimiter(limits, upstash, { timeoutMs: config.RATE_LIMIT_TIMEOUT_MS, clock, logger }) : createMemoryRateLimiter(limits, clock);
  return {
    config,
    db,
    clock,
    logger,
    secrets: new SecretBox(input.encryptionKey),
    rateLimiter: limiter(policy),
    authThrottle: createAuthThrottle(limiter(authPolicy), clock),
    refusals: createRefusalAudit(db, clock, logger),
    priority: input.priority,
    providerMetrics: createProviderMetrics(clock),
    idempotency: upstash ? createUpstashIdempotencyStore(upstash) : createPostgresIdempotencyStore(db),
    queue: config.QSTASH_TOKEN ? createQstashQueue({ token: config.QSTASH_TOKEN, publicBaseUrl, qstashUrl: config.QSTASH_URL }) : createLocalQueue({ logger }),
    publicBaseUrl,
    principals: new PrincipalCache(PRINCIPAL_TTL_MS, 10_000, () => clock.now().getTime()),
  };
}
