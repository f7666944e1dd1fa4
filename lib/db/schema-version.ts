import { readFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import type { Database } from "./client";

/*
 * The schema version a database holds and the one the code was built for, both read from drizzle's own
 * bookkeeping: `drizzle.__drizzle_migrations.created_at` is the journal's `when` of every migration applied,
 * so the newest applied `when` against the journal's last `when` tells "older than the code" with one indexed
 * read, no table of our own. A database ahead of the code (a rollback of the code) is served: migrations only
 * add, the previous code still runs on them.
 */

type Journal = { entries: { idx: number; when: number; tag: string }[] };

type SchemaVersion = { tag: string; when: number };

export type SchemaStatus = { behind: boolean; database: number | null; code: SchemaVersion };

let expected: SchemaVersion | null = null;

/** The newest migration in `drizzle/meta/_journal.json` (read once per process). */
function codeSchemaVersion(migrationsFolder: string): SchemaVersion {
  if (!expected) {
    const journal = JSON.parse(readFileSync(join(migrationsFolder, "meta", "_journal.json"), "utf8")) as Journal;
    const last = journal.entries.at(-1);
    if (!last) throw new Error(`no migrations in ${migrationsFolder}`);
    expected = { tag: last.tag, when: last.when };
  }
  return expected;
}

/** The newest applied migration's `when`, or null on a database never migrated (no drizzle schema yet). */
async function databaseSchemaWhen(db: Database): Promise<number | null> {
  try {
    const result = await db.execute<{ when: string | number | null }>(sql`select max(created_at) as when from drizzle.__drizzle_migrations`);
    const [row] = ((result as { rows?: { when: string | number | null }[] }).rows ?? []) as { when: string | number | null }[];
    return row?.when === null || row?.when === undefined ? null : Number(row.when);
  } catch (error) {
    // 42P01 undefined_table, 3F000 invalid_schema_name: never migrated.
    if (["42P01", "3F000"].includes(pgErrorCode(error) ?? "")) return null;
    throw error;
  }
}

/** The SQLSTATE of a driver error, also when drizzle wrapped it (`cause`). */
function pgErrorCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && typeof current === "object" && depth < 4; current = (current as { cause?: unknown }).cause, depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
  }
  return undefined;
}

/** One cheap check per cold start: is the database at least as new as the code? */
export async function schemaStatus(db: Database, migrationsFolder: string): Promise<SchemaStatus> {
  const code = codeSchemaVersion(migrationsFolder);
  const database = await databaseSchemaWhen(db);
  return { behind: database === null || database < code.when, database, code };
}
