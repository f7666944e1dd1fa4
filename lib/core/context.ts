import type { Database } from "../db/client";
import type { PriorityGate } from "../db/priority";
import type { IdempotencyStore } from "../adapters/idempotency";
import type { Queue } from "../adapters/queue";
import type { RateLimiter } from "../adapters/ratelimit";
import type { Clock } from "../base/clock";
import type { Config } from "./config";
import type { Surface } from "./errors";
import type { Logger } from "../base/logger";
import type { PrincipalCache } from "./api-keys";
import type { OperatorActor, Principal } from "./principal";
import type { SecretBox } from "./secrets";
import type { AuthThrottle } from "./auth-throttle";
import type { RefusalAudit } from "./refusal-audit";
import type { ProviderMetrics } from "./provider-metrics";
import type { RouteDeclaration } from "./route-declaration";

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
  /** Refusals on the operator side, written to the audit log counted per minute (`refusal-audit.ts`). */
  refusals: RefusalAudit;
  idempotency: IdempotencyStore;
  /** The database's priority gate (lib/db/priority.ts): transactional sends mark themselves priority, send-job batches background. */
  priority: PriorityGate;
  /** Provider call figures of this process (`provider-metrics.ts`), read by the operator's `GET /admin/v1/system`. */
  providerMetrics: ProviderMetrics;
  principals: PrincipalCache;
  queue: Queue;
  /** Public origin of this deployment (links, upload URLs, QStash callbacks). */
  publicBaseUrl: string;
};

export type { Access, AdsAccess, OperatorActor, Principal } from "./principal";

type AppVariables = {
  requestId: string;
  service: Surface;
  principal: Principal;
  /** The admin API's caller (set by its authentication; unset on the customer APIs). */
  operator: OperatorActor;
  /** What the answering route declares (public, raw body, priority); undefined on a path no route serves. */
  route: RouteDeclaration | undefined;
  /** The answering route's path parameters, kept by route middleware for middleware that runs around it (the admin audit). */
  pathParams: Record<string, string>;
};

export type AppEnv = { Variables: AppVariables };
