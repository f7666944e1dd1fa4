import { fileURLToPath } from "node:url";
import * as schema from "./schema";
import { releasingFailedBegin } from "./pool-clients";
import { createPriorityGate, type PriorityGate } from "./priority";
import { traceDatabase } from "./tracing";
import type { Database, Tx } from "./database";

export type { Database, Tx };

export type DatabaseHandle = {
  db: Database;
  driver: "pglite" | "pg" | "neon";
  /** The gate this database's statements pass through (./priority.ts), one per handle: the core deps hand it to the code that marks work. */
  priority: PriorityGate;
  /** The server's connection pool (pg and Neon), for what needs one connection of its own. */
  pool?: { connect(): Promise<{ query(text: string): Promise<unknown>; release(): void }> };
  close(): Promise<void>;
};

export const migrationsFolder = fileURLToPath(new URL("../../drizzle", import.meta.url));

export type OpenDatabaseOptions = {
  url?: string;
  dataDir?: string;
  /**
   * Apply `drizzle/` before returning. Default: only for the embedded PGlite (`npm start`, tests). A server
   * (`url`) is migrated at deploy (`npm run db:release`, docs/deploy/upgrading.md), never on a request path.
   */
  migrate?: boolean;
  /** TEST ONLY (`NEON_LOCAL_PROXY`, from the config): `host:port` of `lib/db/neon-local-proxy.ts`. */
  neonLocalProxy?: string;
};

/**
 * One factory, chosen by the URL: unset → PGlite (in memory, or persisted under `dataDir`);
 * a Neon host → `@neondatabase/serverless` over WebSockets (transactions need them); any other
 * `postgres://` → `pg`. Migrations from `drizzle/` are applied before the handle is returned.
 * With a local Neon proxy any URL goes through the Neon driver, so CI runs what production runs.
 * A new PGlite data directory starts from the prepared, migrated snapshot (`./pglite-snapshot`) instead of
 * initdb and every migration: a tenth of the time and under half the memory.
 */
export async function openDatabase(options: OpenDatabaseOptions): Promise<DatabaseHandle> {
  const migrate = options.migrate ?? !options.url;
  const priority = createPriorityGate();
  const handle = options.url ? await connect({ ...options, url: options.url }, priority) : await openPglite(options.dataDir, migrate, priority);
  if (options.url && migrate) await applyMigrations(handle);
  return { ...handle, db: traceDatabase(handle.db, handle.driver) };
}

const casing = "snake_case" as const;

/**
 * PostgreSQL's buffer cache inside PGlite's WebAssembly memory. It is allocated and zeroed at start, so its size
 * is resident memory from the first moment: the default 128 MB made half of `npm start`'s database memory
 * (32 MB takes about 100 MB off the database's RSS). A page not in it is read from the data
 * directory's file, which the operating system's page cache (or PGlite's in-memory file system) holds anyway.
 */
const PGLITE_SHARED_BUFFERS = "32MB";

async function openPglite(dataDir: string | undefined, migrate: boolean, priority: PriorityGate): Promise<DatabaseHandle> {
  const { PGlite } = await import("@electric-sql/pglite");
  const { drizzle } = await import("drizzle-orm/pglite");
  const { PGLITE_INITDB_PARAMS, pgliteStartingPoint, prepareSnapshot } = await import("./pglite-snapshot");
  let start = pgliteStartingPoint(dataDir);
  if (start.fresh && !start.tar && migrate) {
    // No snapshot yet (an install without postinstall): made now, once, then started from like any other.
    // Should that fail (a read-only node_modules), this database runs initdb and the migrations itself.
    await prepareSnapshot().then(
      () => (start = pgliteStartingPoint(dataDir)),
      () => undefined,
    );
  }
  const options = {
    startParams: [...PGlite.defaultStartParams, "-c", `shared_buffers=${PGLITE_SHARED_BUFFERS}`],
    initDbStartParams: PGLITE_INITDB_PARAMS,
    ...(start.tar ? { loadDataDir: start.tar } : {}),
  };
  const client = priority.prioritised(dataDir ? new PGlite(dataDir, options) : new PGlite(options));
  await client.waitReady;
  const handle: DatabaseHandle = { db: drizzle(client, { schema, casing }) as unknown as Database, driver: "pglite", priority, close: () => client.close() };
  // A snapshot is the current migrations already (its key is the journal); an existing data directory gets
  // what is new since its last start.
  if (migrate && !start.tar) await applyMigrations(handle);
  return handle;
}

async function connect(options: OpenDatabaseOptions & { url: string }, priority: PriorityGate): Promise<DatabaseHandle> {
  const localProxy = options.neonLocalProxy;
  if (localProxy || new URL(options.url).hostname.endsWith(".neon.tech")) {
    const { Pool, neonConfig } = await import("@neondatabase/serverless");
    const { drizzle } = await import("drizzle-orm/neon-serverless");
    const { WebSocket } = await import("ws");
    neonConfig.webSocketConstructor = WebSocket;
    if (localProxy) {
      // A plain PostgreSQL server behind a plain ws:// proxy: no TLS on either layer, and no pipelined
      // start-up, which assumes Neon's cleartext password exchange (a local server trusts loopback).
      neonConfig.wsProxy = (host, port) => `${localProxy}/v2?address=${host}:${port}`;
      neonConfig.useSecureWebSocket = false;
      neonConfig.forceDisablePgSSL = true;
      neonConfig.pipelineConnect = false;
      neonConfig.pipelineTLS = false;
    }
    const pool = priority.prioritisedPool(releasingFailedBegin(new Pool({ connectionString: options.url })));
    return { db: drizzle(pool, { schema, casing }) as unknown as Database, driver: "neon", priority, pool, close: () => pool.end() };
  }
  const { Pool } = await import("pg");
  const { drizzle } = await import("drizzle-orm/node-postgres");
  // A bounded wait for a connection: while the server restarts, a request fails fast (503, see
  // lib/core/database-unavailable.ts) instead of hanging. An idle client whose server went away emits
  // `error` on the pool, which must be handled or it would end the process; the pool discards that client
  // and opens a new one on the next checkout, so it recovers by itself once the server is back.
  const pool = priority.prioritisedPool(releasingFailedBegin(new Pool({ connectionString: options.url, max: 10, connectionTimeoutMillis: 5_000 })));
  pool.on("error", () => undefined);
  // A checked-out client told "terminating connection" between two statements emits `error` too; the
  // statement in progress (or the next) fails and the pool discards the client when it is released.
  pool.on("connect", (client) => client.on("error", () => undefined));
  return { db: drizzle(pool, { schema, casing }) as unknown as Database, driver: "pg", priority, pool, close: () => pool.end() };
}

/** drizzle's migrations under one session-level advisory lock: two releases at once migrate one after the other. */
const MIGRATION_LOCK = 727_290_001;

/**
 * Applies what `drizzle/` has that the database lacks. On a server the run holds a session-level advisory
 * lock on a connection of its own for the whole run, so a second concurrent release waits for the first and
 * then finds nothing left to do.
 */
export async function applyMigrations(handle: DatabaseHandle): Promise<void> {
  await withMigrationLock(handle, () => migrateUnderLock(handle, migrationsFolder));
}

/** Runs `work` holding the migrations' advisory lock (a server's; the embedded PGlite has one client). */
export async function withMigrationLock<T>(handle: DatabaseHandle, work: () => Promise<T>): Promise<T> {
  if (!handle.pool) return work();
  const session = await handle.pool.connect();
  try {
    await session.query(`select pg_advisory_lock(${MIGRATION_LOCK})`);
    try {
      return await work();
    } finally {
      await session.query(`select pg_advisory_unlock(${MIGRATION_LOCK})`);
    }
  } finally {
    session.release();
  }
}

/** drizzle's migrator over `folder` (`drizzle/`, or a copy whose journal ends earlier); the caller holds the lock. */
export async function migrateUnderLock(handle: DatabaseHandle, folder: string): Promise<void> {
  const config = { migrationsFolder: folder };
  if (handle.driver === "pglite") {
    const { migrate } = await import("drizzle-orm/pglite/migrator");
    await migrate(handle.db as never, config);
  } else if (handle.driver === "neon") {
    const { migrate } = await import("drizzle-orm/neon-serverless/migrator");
    await migrate(handle.db as never, config);
  } else {
    const { migrate } = await import("drizzle-orm/node-postgres/migrator");
    await migrate(handle.db as never, config);
  }
}
