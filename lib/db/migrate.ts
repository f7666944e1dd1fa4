import { loadConfig } from "../core/config";
import { openDatabase } from "./client";

/** `npm run db:migrate`: applies `drizzle/` to DATABASE_URL (or the embedded PGlite under DATA_DIR). */
const config = loadConfig();
const handle = await openDatabase({ url: config.DATABASE_URL, dataDir: config.DATABASE_URL ? undefined : `${config.DATA_DIR}/pglite`, neonLocalProxy: config.NEON_LOCAL_PROXY });
await handle.close();
process.stdout.write(`migrations applied (${handle.driver})\n`);
