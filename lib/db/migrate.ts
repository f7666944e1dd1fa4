import { loadDatabaseConfig } from "./config";
import { openDatabase } from "./client";

/**
 * `npm run db:migrate`: applies `drizzle/` to DATABASE_URL (or the embedded PGlite under DATA_DIR). It reads
 * only the database variables, so a deploy step can migrate without the service's other settings.
 */
const config = loadDatabaseConfig();
const handle = await openDatabase({
  url: config.DATABASE_URL,
  dataDir: config.DATABASE_URL ? undefined : `${config.DATA_DIR}/pglite`,
  neonLocalProxy: config.NEON_LOCAL_PROXY,
  migrate: true,
});
await handle.close();
process.stdout.write(`migrations applied (${handle.driver})\n`);
