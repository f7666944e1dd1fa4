/** Databases made for the workers of a run against a PostgreSQL server (./worker-database.ts); `pg` is loaded only to make them. */
export const WORKER_DATABASES = 2;

/** The database URL of worker `poolId` (1-based; pool ids above the count share round-robin). */
export function workerDatabaseUrl(base: string, poolId: number): string {
  const url = new URL(base);
  const slot = ((Math.max(1, poolId) - 1) % WORKER_DATABASES) + 1;
  url.pathname = `${url.pathname}_w${slot}`;
  return url.toString();
}

/**
 * Copies the migrated database in `base` into one database per worker. PostgreSQL copies a template only while
 * nobody is connected to it, so a copy refused for that reason (the migration's connections still closing) is
 * retried for a few seconds.
 */
export async function makeWorkerDatabases(base: string): Promise<void> {
  const { default: pg } = await import("pg");
  const url = new URL(base);
  const template = decodeURIComponent(url.pathname.slice(1));
  url.pathname = "/postgres";
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    for (let slot = 1; slot <= WORKER_DATABASES; slot += 1) {
      const name = pg.escapeIdentifier(`${template}_w${slot}`);
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      for (let attempt = 0; ; attempt += 1) {
        try {
          await client.query(`CREATE DATABASE ${name} TEMPLATE ${pg.escapeIdentifier(template)}`);
          break;
        } catch (error) {
          // 55006: "source database is being accessed by other users".
          if ((error as { code?: string }).code !== "55006" || attempt >= 50) throw error;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    }
  } finally {
    await client.end();
  }
}
