import { sealPlainAccountFields } from "../ads";
import { ConfigError, loadDatabaseConfig } from "../db/config";
import { SecretBox } from "../core/secrets";
import { migrationsFolder, openDatabase } from "../db/client";
import { applyReleaseMigrations } from "../db/concurrent-indexes";
import { schemaStatus } from "../db/schema-version";

/**
 * `npm run db:release`: the deploy's release step, the only place a server database changes shape.
 * 1. The migrations of `drizzle/`, under a PostgreSQL advisory lock (`applyReleaseMigrations`): two deploys at
 *    once migrate one after the other, the second finding nothing to do. Migrations that only index a large
 *    table are built `CONCURRENTLY` on a database that lacks them (writes go on meanwhile).
 * 2. One-off data fixes, kept off the cold start: ad account identifiers stored before they were
 *    sealed are sealed (needs `ENCRYPTION_KEY`; without it the step says so and leaves them).
 * Vercel runs it as part of the build command (`npm run build && npm run db:release -- --if-database`), so
 * a deployment is only promoted over a migrated database; functions then only read the schema version on a
 * cold start and answer 503 `schema_behind` while it is older than their code (lib/bootstrap.ts).
 * `--if-database`: without `DATABASE_URL` (a build with no database configured) it skips instead of
 * migrating a local PGlite.
 */
async function main(): Promise<void> {
  const config = loadDatabaseConfig();
  if (!config.DATABASE_URL) {
    if (process.argv.includes("--if-database")) {
      process.stdout.write("release step skipped: no DATABASE_URL\n");
      return;
    }
    throw new ConfigError("DATABASE_URL is required for the release step (the embedded PGlite migrates itself on start).");
  }
  const handle = await openDatabase({ url: config.DATABASE_URL, neonLocalProxy: config.NEON_LOCAL_PROXY, migrate: false });
  try {
    for (const build of await applyReleaseMigrations(handle, migrationsFolder)) {
      if (build.path === "concurrently") process.stdout.write(`${build.tag}: ${build.indexes.length} indexes built concurrently (writes went on)\n`);
    }
    const status = await schemaStatus(handle.db, migrationsFolder);
    process.stdout.write(`migrations applied (${handle.driver}), schema at ${status.code.tag}\n`);
    const key = process.env.ENCRYPTION_KEY;
    if (key) {
      const resealed = await sealPlainAccountFields({ db: handle.db, secrets: new SecretBox(key) });
      process.stdout.write(`ad accounts with plain-text fields sealed: ${resealed}\n`);
    } else {
      process.stdout.write("ENCRYPTION_KEY not set: the one-off sealing of plain-text ad account fields was skipped\n");
    }
  } finally {
    await handle.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
