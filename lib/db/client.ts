import { fileURLToPath } from "node:url";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import type { ExtractTablesWithRelations } from "drizzle-orm";
import * as schema from "./schema";
import { traceDatabase } from "./tracing";

export type Schema = typeof schema;
/** The one database type the domain code sees, whichever driver sits behind it. */
export type Database = PgDatabase<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** A transaction handle has the same query surface as the database. */
export type Tx = Parameters<Parameters<Database["transaction"]>[0]>[0];

export type DatabaseHandle = {
  db: Database;
  driver: "pglite" | "pg" | "neon";
  close(): Promise<void>;
};

export const migrationsFolder = fileURLToPath(new URL("../../drizzle", import.meta.url));

export type OpenDatabaseOptions = {
  url?: string;
  dataDir?: string;
  migrate?: boolean;
  /** TEST ONLY (`NEON_LOCAL_PROXY`, from the config): `host:port` of `lib/db/neon-local-proxy.ts`. */
  neonLocalProxy?: string;
};

/**
 * One factory, chosen by the URL: unset → PGlite (in memory, or persisted under `dataDir`);
 * a Neon host → `@neondatabase/serverless` over WebSockets (transactions need them); any other
 * `postgres://` → `pg`. Migrations from `drizzle/` are applied before the handle is returned.
 * With a local Neon proxy any URL goes through the Neon driver, so CI runs what production runs.
 */
export async function openDatabase(options: OpenDatabaseOptions): Promise<DatabaseHandle> {
  const handle = await connect(options);
  if (options.migrate !== false) await applyMigrations(handle);
  return { ...handle, db: traceDatabase(handle.db, handle.driver) };
}

async function connect(options: OpenDatabaseOptions): Promise<DatabaseHandle> {
  const casing = "snake_case" as const;
  if (!options.url) {
    const { PGlite } = await import("@electric-sql/pglite");
    const { drizzle } = await import("drizzle-orm/pglite");
    const client = options.dataDir ? new PGlite(options.dataDir) : new PGlite();
    await client.waitReady;
    return { db: drizzle(client, { schema, casing }) as unknown as Database, driver: "pglite", close: () => client.close() };
  }
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
    const pool = new Pool({ connectionString: options.url });
    return { db: drizzle(pool, { schema, casing }) as unknown as Database, driver: "neon", close: () => pool.end() };
  }
  const { Pool } = await import("pg");
  const { drizzle } = await import("drizzle-orm/node-postgres");
  const pool = new Pool({ connectionString: options.url, max: 10 });
  return { db: drizzle(pool, { schema, casing }) as unknown as Database, driver: "pg", close: () => pool.end() };
}

async function applyMigrations(handle: DatabaseHandle): Promise<void> {
  const config = { migrationsFolder };
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
