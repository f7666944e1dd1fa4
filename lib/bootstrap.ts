import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { systemClock } from "./base/clock";
import { ConfigError, loadConfig, type Config } from "./core/config";
import { createCoreDeps } from "./core/deps";
import { createLogger } from "./base/logger";
import { generateEncryptionKey, randomToken } from "./core/secrets";
import { databaseUnavailableError, isDatabaseUnavailable } from "./core/database-unavailable";
import { ApiError, errorBody, statusOf, type Surface } from "./core/errors";
import type { Logger } from "./base/logger";
import { lockDataDir } from "./data-dir";
import { migrationsFolder, openDatabase, type Database, type DatabaseHandle } from "./db/client";
import { schemaStatus, type SchemaStatus } from "./db/schema-version";
import type { TracingHandle } from "./core/tracing-sdk";
import { tracingRequested } from "./base/tracing";
import { startProviders } from "./providers";
import type { createRootApp, RuntimeDeps } from "./runtime";

/** What `bootWith` needs of the app it builds: a fetch (the root app, or one function's own app). */
type Served = { fetch(request: Request, env?: unknown): Response | Promise<Response> };

export type Runtime<App = ReturnType<typeof createRootApp>> = {
  config: Config;
  deps: RuntimeDeps;
  database: DatabaseHandle;
  app: App;
  /**
   * The root app behind the schema gate: while the database is older than the code, every request answers
   * 503 `schema_behind` (what `npm start` and the Vercel functions serve; tests call `app.root` directly).
   */
  fetch(request: Request, env?: unknown): Response | Promise<Response>;
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

/** The OTel SDK, loaded only when the environment asks for tracing (its exporter is a module of its own). */
async function startTracing(env: Record<string, string | undefined>): Promise<TracingHandle | null> {
  if (!tracingRequested(env)) return null;
  const { startTracing: start } = await import("./core/tracing-sdk");
  return start(env);
}

/**
 * The whole deployment in one process (`npm start`, the CLIs, tests): every app behind the root app. The
 * root app's module is imported here, not at the top, so a Vercel function that boots only its own app
 * (`bootWith`, lib/functions/) never loads the others.
 */
export async function bootRuntime(env: Record<string, string | undefined> = process.env): Promise<Runtime> {
  const { createRootApp } = await import("./runtime");
  return bootWith(env, createRootApp, (app) => app.root);
}

/**
 * Builds a runtime from the environment around the app `build` makes of its deps; `served` picks what
 * answers requests (behind the schema gate). Embedded defaults: PGlite persisted under DATA_DIR and secrets
 * generated there. On Vercel (`VERCEL` set) start-up refuses without every `PRODUCTION_REQUIRED_ENV`.
 */
async function bootWith<App>(env: Record<string, string | undefined>, build: (deps: RuntimeDeps) => App, served: (app: App) => Served): Promise<Runtime<App>> {
  const config = loadConfig(env);
  // Before anything opens a connection, so every span has a provider; off (no SDK loaded) unless OTEL_* ask.
  const tracing = await startTracing(env);
  const onVercel = Boolean(env.VERCEL);
  if (onVercel) {
    const missing = PRODUCTION_REQUIRED_ENV.filter((name) => !config[name]);
    if (missing.length > 0) throw new ConfigError(`Missing environment for production: ${missing.join(", ")}`);
  }
  // One process per data directory (lib/data-dir.ts); a serverless instance keeps nothing on disk.
  let lock: { release(): void } | undefined;
  if (!onVercel) {
    mkdirSync(config.DATA_DIR, { recursive: true, mode: 0o700 });
    lock = lockDataDir(config.DATA_DIR);
  }
  const encryption = fileSecret(config.DATA_DIR, "encryption-key", config.ENCRYPTION_KEY, generateEncryptionKey);
  const adminToken = fileSecret(config.DATA_DIR, "admin-token", config.ADMIN_TOKEN, () => randomToken(32));
  // Embedded (PGlite): migrated here, it is the local default. A server: migrated at deploy (`npm run
  // db:release`), and a cold start only reads the schema version, one indexed row (see `schemaGate`).
  const database = await openDatabase({
    url: config.DATABASE_URL,
    dataDir: config.DATABASE_URL ? undefined : join(config.DATA_DIR, "pglite"),
    neonLocalProxy: config.NEON_LOCAL_PROXY,
  });
  const logger = createLogger(config.LOG_LEVEL);
  let gate: SchemaGate;
  try {
    gate = config.DATABASE_URL ? await schemaGate(database.db, logger) : () => null;
  } catch (error) {
    await database.close();
    throw error;
  }
  const providers = await startProviders(config, { embedded: !onVercel, stateDir: onVercel ? undefined : config.DATA_DIR });
  const deps: RuntimeDeps = {
    ...createCoreDeps({ config, db: database.db, priority: database.priority, clock: systemClock, logger, encryptionKey: encryption.value }),
    adminToken: adminToken.value,
    // A new one per start, only on this machine (server.json, mode 0600): what `npm run admin` sends.
    cliToken: onVercel ? undefined : randomToken(32),
    providers,
  };
  if (!config.DATABASE_URL) {
    // Ad account identifiers written before they were sealed, in an old local data directory (a no-op on a
    // current one). With a server this is part of the release step (lib/commands/release.ts), off the request path.
    const { sealPlainAccountFields } = await import("./ads/onboarding/service");
    const resealed = await sealPlainAccountFields(deps);
    if (resealed > 0) logger.info("sealed plain-text ad account fields", { accounts: resealed });
  }
  const app = build(deps);
  const root = served(app);
  return {
    config,
    deps,
    database,
    app,
    // `env` is the Node adapter's (the socket, for the client address), passed through.
    // With the schema current (the usual case) the root app answers directly: a synchronous answer stays
    // synchronous, which keeps the Node adapter on its fast path.
    fetch: (request, env) => {
      const pending = gate();
      if (pending === null) return root.fetch(request, env);
      return pending.then((refused) => (refused ? errorResponse(refused, request) : root.fetch(request, env)));
    },
    adminTokenSource: adminToken.source,
    tracing,
    close: async () => {
      deps.queue.close();
      await providers.close();
      await database.close();
      await tracing?.shutdown();
      lock?.release();
    },
  };
}

/** Null at once when the database is known to serve this code; else resolves null, or the 503 to answer. */
type SchemaGate = () => Promise<ApiError | null> | null;

/** While behind, the version is read again at most this often (a release in progress finishes meanwhile). */
const SCHEMA_RECHECK_MS = 5_000;

/**
 * The cold start's one check: the newest applied migration against the code's. Behind, the gate answers
 * 503 `schema_behind` (logged once per check) and reads the version again at most every `SCHEMA_RECHECK_MS`;
 * once current it costs nothing more.
 */
async function schemaGate(db: Database, logger: Logger): Promise<SchemaGate> {
  let status: SchemaStatus = await schemaStatus(db, migrationsFolder);
  let checkedAt = Date.now();
  const report = () => {
    if (status.behind) logger.error("the database schema is older than the code; run the release step (npm run db:release)", { needs: status.code.tag });
  };
  report();
  const recheck = async (): Promise<ApiError | null> => {
    if (Date.now() - checkedAt >= SCHEMA_RECHECK_MS) {
      checkedAt = Date.now();
      status = await schemaStatus(db, migrationsFolder);
      report();
      if (!status.behind) return null;
    }
    return new ApiError("schema_behind", "The service is being updated (its database is older than this deployment); retry after the Retry-After delay.", {
      headers: { "Retry-After": String(SCHEMA_RECHECK_MS / 1000) },
    });
  };
  return () => (status.behind ? recheck() : null);
}

/** Whose envelope a path gets (`/api/*` internal; the console's like the admin API's). */
function surfaceOf(pathname: string): Surface {
  if (pathname.startsWith("/mail/")) return "mail";
  if (pathname.startsWith("/ads/")) return "ads";
  if (pathname.startsWith("/api/")) return "internal";
  return "admin";
}

/** An `ApiError` answered outside the apps (schema gate, a cold start that could not reach the database). */
function errorResponse(error: ApiError, request: Request): Response {
  const requestId = crypto.randomUUID();
  const surface = surfaceOf(new URL(request.url).pathname);
  return Response.json(errorBody(error, surface, requestId), {
    status: statusOf(error.code, surface),
    headers: { ...error.headers, "X-Request-Id": requestId, "X-Content-Type-Options": "nosniff" },
  });
}

/** A cold start refused by an unreachable database answers 503 like a request would; anything else is thrown. */
export function bootFailureResponse(error: unknown, request: Request): Response {
  if (!isDatabaseUnavailable(error)) throw error;
  return errorResponse(databaseUnavailableError(), request);
}

/**
 * One runtime per Vercel function instance, built on the first request around that function's own app
 * (lib/functions/); a failed start is forgotten, so the next request boots again.
 */
export function sharedRuntime<App>(build: (deps: RuntimeDeps) => App, served: (app: App) => Served): () => Promise<Runtime<App>> {
  let shared: Promise<Runtime<App>> | null = null;
  return () => {
    shared ??= bootWith(process.env, build, served).catch((error: unknown) => {
      shared = null;
      throw error;
    });
    return shared;
  };
}
