import { openDatabase } from "../../lib/db/client";
import { prepareSnapshot } from "../../lib/db/pglite-snapshot";
import { makeWorkerDatabases } from "./worker-databases";

/**
 * Once per test run, before any file: the database every harness starts from. Embedded: the migrated PGlite
 * snapshot (each harness loads it instead of running initdb and the migrations, lib/db/pglite-snapshot.ts).
 * With `DATABASE_URL` (CI's PostgreSQL run): the migrations, once, as the release step would; then, on a plain
 * PostgreSQL server (not through the Neon proxy), a copy of the migrated database per worker
 * (./worker-database.ts), named in `WORKER_DATABASE_BASE_URL` for the workers.
 */
export async function setup(): Promise<void> {
  if (process.env.DATABASE_URL) {
    const handle = await openDatabase({ url: process.env.DATABASE_URL, neonLocalProxy: process.env.NEON_LOCAL_PROXY, migrate: true });
    await handle.close();
    if (!process.env.NEON_LOCAL_PROXY) {
      await makeWorkerDatabases(process.env.DATABASE_URL);
      process.env.WORKER_DATABASE_BASE_URL = process.env.DATABASE_URL;
    }
    return;
  }
  await prepareSnapshot();
}
