import { openDatabase } from "../../lib/db/client";
import { prepareSnapshot } from "../../lib/db/pglite-snapshot";

/**
 * Once per test run, before any file: the database every harness starts from. Embedded: the migrated PGlite
 * snapshot (each harness loads it instead of running initdb and the migrations, lib/db/pglite-snapshot.ts).
 * With `DATABASE_URL` (CI's PostgreSQL run): the migrations, once, as the release step would.
 */
export async function setup(): Promise<void> {
  if (process.env.DATABASE_URL) {
    const handle = await openDatabase({ url: process.env.DATABASE_URL, neonLocalProxy: process.env.NEON_LOCAL_PROXY, migrate: true });
    await handle.close();
    return;
  }
  await prepareSnapshot();
}
