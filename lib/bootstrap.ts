import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { sealPlainAccountFields } from "./ads/onboarding/service";
import { systemClock } from "./core/clock";
import { ConfigError, loadConfig, type Config } from "./core/config";
import { createCoreDeps } from "./core/deps";
import { createLogger } from "./core/logger";
import { generateEncryptionKey, randomToken } from "./core/secrets";
import { openDatabase, type DatabaseHandle } from "./db/client";
import type { TracingHandle } from "./core/tracing-sdk";
import { tracingRequested } from "./core/tracing";
import { startProviders } from "./providers";
import { createRootApp, type RuntimeDeps } from "./runtime";

export type Runtime = {
  config: Config;
  deps: RuntimeDeps;
  database: DatabaseHandle;
  app: ReturnType<typeof createRootApp>;
  /** Where the operator token came from, for the start-up banner (never the token itself). */
  adminTokenSource: string;
  /** Null unless the environment switches tracing on (`lib/core/tracing-sdk.ts`). */
  tracing: TracingHandle | null;
  /** Stops the embedded simulators and closes the database. */
  close(): Promise<void>;
};

/** A secret from the environment, or generated once into DATA_DIR with mode 0600 (embedded mode). */
function fileSecret(dataDir: string, name: string, fromEnv: string | undefined, generate: () => string): { value: string; source: string } {
  if (fromEnv) return { value: fromEnv, source: "environment" };
  const path = join(dataDir, name);
  if (!existsSync(path)) {
    writeFileSync(path, `${generate()}\n`, { mode: 0o600 });
  }
  chmodSync(path, 0o600);
  return { value: readFileSync(path, "utf8").trim(), source: resolve(path) };
}

/**
 * What production must get from the environment, because nothing may be generated or kept on a function's
 * disk: the database, the operator token and the key for secrets at rest (the Postmark webhook credentials
 * are per customer, in the database, sealed with that key); and every production adapter, because the
 * embedded fallbacks do not survive a serverless platform: the in-process queue loses work when an instance
 * stops, local files are not shared between instances (nor kept), a limiter in memory limits per instance,
 * and without the cron secret Vercel Cron is refused. `PUBLIC_BASE_URL` is where QStash delivers.
 */
export const PRODUCTION_REQUIRED_ENV = [
  "DATABASE_URL",
  "ADMIN_TOKEN",
  "ENCRYPTION_KEY",
  "PUBLIC_BASE_URL",
  "CRON_SECRET",
  "UPSTASH_REDIS_REST_URL",
  "UPSTASH_REDIS_REST_TOKEN",
  "QSTASH_TOKEN",
  "QSTASH_CURRENT_SIGNING_KEY",
  "QSTASH_NEXT_SIGNING_KEY",
  "BLOB_READ_WRITE_TOKEN",
] as const;

/**
 * Builds a runtime from the environment. Embedded defaults: PGlite persisted under DATA_DIR and secrets
 * generated there. On Vercel (`VERCEL` set) start-up refuses without every `PRODUCTION_REQUIRED_ENV`.
 */
async function startTracing(env: Record<string, string | undefined>): Promise<TracingHandle | null> {
  if (!tracingRequested(env)) return null;
  const { startTracing: start } = await import("./core/tracing-sdk");
  return start(env);
}

export async function bootRuntime(env: Record<string, string | undefined> = process.env): Promise<Runtime> {
  const config = loadConfig(env);
  // Before anything opens a connection, so every span has a provider; off (no SDK loaded) unless OTEL_* ask.
  const tracing = await startTracing(env);
  const onVercel = Boolean(env.VERCEL);
  if (onVercel) {
    const missing = PRODUCTION_REQUIRED_ENV.filter((name) => !config[name]);
    if (missing.length > 0) throw new ConfigError(`Missing environment for production: ${missing.join(", ")}`);
  } else {
    mkdirSync(config.DATA_DIR, { recursive: true, mode: 0o700 });
  }
  const encryption = fileSecret(config.DATA_DIR, "encryption-key", config.ENCRYPTION_KEY, generateEncryptionKey);
  const adminToken = fileSecret(config.DATA_DIR, "admin-token", config.ADMIN_TOKEN, () => randomToken(32));
  const database = await openDatabase({
    url: config.DATABASE_URL,
    dataDir: config.DATABASE_URL ? undefined : join(config.DATA_DIR, "pglite"),
    neonLocalProxy: config.NEON_LOCAL_PROXY,
  });
  const logger = createLogger(config.LOG_LEVEL);
  const providers = await startProviders(config, { embedded: !onVercel });
  const deps: RuntimeDeps = {
    ...createCoreDeps({ config, db: database.db, clock: systemClock, logger, encryptionKey: encryption.value }),
    adminToken: adminToken.value,
    providers,
  };
  // Ad account identifiers written before they were sealed (a no-op on a current store).
  const resealed = await sealPlainAccountFields(deps);
  if (resealed > 0) logger.info("sealed plain-text ad account fields", { accounts: resealed });
  return {
    config,
    deps,
    database,
    app: createRootApp(deps),
    adminTokenSource: adminToken.source,
    tracing,
    close: async () => {
      deps.queue.close();
      await providers.close();
      await database.close();
      await tracing?.shutdown();
    },
  };
}

let shared: Promise<Runtime> | null = null;

/** One runtime per Vercel function instance, built on the first request. */
export function sharedRuntime(): Promise<Runtime> {
  shared ??= bootRuntime().catch((error: unknown) => {
    shared = null;
    throw error;
  });
  return shared;
}
