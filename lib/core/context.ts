import type { Database } from "../db/client";
import type { IdempotencyStore } from "../adapters/idempotency";
import type { Queue } from "../adapters/queue";
import type { RateLimiter } from "../adapters/ratelimit";
import type { Clock } from "./clock";
import type { Config } from "./config";
import type { ServiceName, Surface } from "./errors";
import type { Logger } from "./logger";
import type { PrincipalCache } from "./api-keys";
import type { SecretBox } from "./secrets";
import type { AuthThrottle } from "./auth-throttle";

/** What every service needs, built once per process (or per test) by `createCoreDeps`. */
export type CoreDeps = {
  config: Config;
  db: Database;
  clock: Clock;
  logger: Logger;
  secrets: SecretBox;
  rateLimiter: RateLimiter;
  /** Failed authentication per client address (`auth-throttle.ts`). */
  authThrottle: AuthThrottle;
  idempotency: IdempotencyStore;
  principals: PrincipalCache;
  queue: Queue;
  /** Public origin of this deployment (links, upload URLs, QStash callbacks). */
  publicBaseUrl: string;
};

export type Scope = "full" | "reporting";

/** How a route touches the account: reads, writes, or sends (mail's access switch guards sends only). */
export type Access = "read" | "write" | "send";

export type MailAccess = { sendingBlocked: boolean; mode: "live" | "sandbox"; monthlyLimit: number; maxPerJob: number };
export type AdsAccess = {
  accountState: "active" | "deactivated" | "overdue" | "checkout_open" | "ended";
  stage: "starter" | "growth" | "scale" | "enterprise";
  enterpriseIncludedAds: number | null;
};

/** The authenticated caller: one key, bound to one customer, one service and one scope. */
export type Principal = {
  keyId: string;
  customerId: string;
  customerName: string;
  service: Exclude<ServiceName, "admin">;
  scope: Scope;
  mail: MailAccess | null;
  ads: AdsAccess | null;
};

export type AppVariables = {
  requestId: string;
  service: Surface;
  principal: Principal;
};

export type AppEnv = { Variables: AppVariables };
