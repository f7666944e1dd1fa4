import { sql, type SQL } from "drizzle-orm";
import { toSnakeCase } from "drizzle-orm/casing";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import type { Database, Tx } from "./client";

/**
 * Rows of a raw statement. The bulk paths of send jobs (5,000 recipients per call, 500 per batch) use
 * `unnest` over array parameters: one statement with a handful of parameters instead of thousands.
 * Every driver we use (PGlite, pg, Neon) answers `execute` with `{ rows }`.
 */
export async function queryRows<T>(db: Database | Tx, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}

/**
 * A column's bare name, from the schema object, for the places of a raw statement where Postgres refuses
 * `table.column` (SET lists, INSERT column lists, RETURNING of a CTE read by alias): renaming a column in
 * `lib/db/schema` then fails the type check instead of the statement at run time. `${column}` gives the
 * qualified name everywhere else. The database is opened with `casing: "snake_case"`, which is what names
 * a column declared without an explicit name.
 */
export function col(column: AnyPgColumn): SQL {
  return sql`${sql.identifier(column.keyAsName ? toSnakeCase(column.name) : column.name)}`;
}

/** Several bare column names, comma-separated: an INSERT's column list. */
export function cols(...columns: AnyPgColumn[]): SQL {
  return sql.join(columns.map(col), sql`, `);
}
