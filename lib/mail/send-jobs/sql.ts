import type { SQL } from "drizzle-orm";
import type { Database, Tx } from "../../db/client";

/**
 * Rows of a raw statement. The bulk paths of send jobs (5,000 recipients per call, 500 per batch) use
 * `unnest` over array parameters: one statement with a handful of parameters instead of thousands.
 * Every driver we use (PGlite, pg, Neon) answers `execute` with `{ rows }`.
 */
export async function queryRows<T>(db: Database | Tx, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}
