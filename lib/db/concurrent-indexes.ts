import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { migrateUnderLock, withMigrationLock, type DatabaseHandle } from "./client";
import { queryRows } from "./sql";

/**
 * Migrations that only add indexes to tables that grow with every mail. On a fresh database they run as
 * written (inside the migrator's transaction, on empty tables). On an existing database that has not had
 * them yet, a plain `CREATE INDEX` would hold a lock that blocks every write to the table for the whole
 * build; the release step builds them `CONCURRENTLY` instead (writes go on; it cannot run in a
 * transaction), then lets the migrator record the migration, whose statements say `IF NOT EXISTS`.
 */
const CONCURRENT_INDEX_MIGRATIONS = ["0026_mail_stats_indexes"];

type JournalEntry = { idx: number; when: number; tag: string };

/** What the release step did about each such migration: `concurrently` (built while writes went on) or `in-migration` (a fresh database, or one that had the migration already). */
export type IndexBuild = { tag: string; path: "concurrently" | "in-migration"; indexes: string[] };

function readJournal(folder: string): JournalEntry[] {
  return (JSON.parse(readFileSync(join(folder, "meta", "_journal.json"), "utf8")) as { entries: JournalEntry[] }).entries;
}

/** `drizzle/` with its journal ending before `tag`: migrating with it stops just short of that migration. */
function foldersBefore(folder: string, tag: string): string {
  const copy = mkdtempSync(join(tmpdir(), "release-migrations-"));
  cpSync(folder, copy, { recursive: true });
  const file = join(copy, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(file, "utf8")) as { entries: JournalEntry[] };
  journal.entries = journal.entries.slice(
    0,
    journal.entries.findIndex((e) => e.tag === tag),
  );
  writeFileSync(file, JSON.stringify(journal));
  return copy;
}

/** When the database's newest applied migration was made (drizzle's own record), or null for a database without one. */
async function lastApplied(handle: DatabaseHandle): Promise<number | null> {
  const [exists] = await queryRows<{ present: boolean }>(handle.db, sql`select to_regclass('drizzle.__drizzle_migrations') is not null as present`);
  if (!exists?.present) return null;
  const [row] = await queryRows<{ at: string | null }>(handle.db, sql`select max(created_at)::text as at from drizzle.__drizzle_migrations`);
  return row?.at ? Number(row.at) : null;
}

/** The `CREATE INDEX` statements of one migration file, as `CREATE INDEX CONCURRENTLY IF NOT EXISTS`, with each index's name. */
function concurrentStatements(folder: string, tag: string): { name: string; statement: string }[] {
  const text = readFileSync(join(folder, `${tag}.sql`), "utf8");
  return text
    .split("--> statement-breakpoint")
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map((s) => {
      const match = /^CREATE INDEX IF NOT EXISTS "([^"]+)" (ON .+)$/s.exec(s.replace(/;$/, ""));
      if (!match) throw new Error(`${tag}: every statement must be CREATE INDEX IF NOT EXISTS to be built concurrently: ${s.slice(0, 80)}`);
      return { name: match[1] ?? "", statement: `CREATE INDEX CONCURRENTLY IF NOT EXISTS "${match[1]}" ${match[2]}` };
    });
}

/**
 * Applies `drizzle/` as the release step does: each migration of `CONCURRENT_INDEX_MIGRATIONS` that the
 * database lacks gets the migrations before it applied first, then its indexes built `CONCURRENTLY`
 * (one statement each, no transaction), then the rest of the migrations. An index left invalid by an
 * earlier interrupted build is dropped and built again. A fresh database (no migration applied) takes the
 * migrations as written. Everything runs under the migrations' advisory lock, like `applyMigrations`.
 */
export async function applyReleaseMigrations(handle: DatabaseHandle, folder: string): Promise<IndexBuild[]> {
  return withMigrationLock(handle, () => releaseUnderLock(handle, folder));
}

async function releaseUnderLock(handle: DatabaseHandle, folder: string): Promise<IndexBuild[]> {
  const builds: IndexBuild[] = [];
  const journal = readJournal(folder);
  for (const tag of CONCURRENT_INDEX_MIGRATIONS) {
    const entry = journal.find((e) => e.tag === tag);
    if (!entry) continue;
    const statements = concurrentStatements(folder, tag);
    const applied = await lastApplied(handle);
    if (applied === null || applied >= entry.when) {
      builds.push({ tag, path: "in-migration", indexes: statements.map((s) => s.name) });
      continue;
    }
    const before = foldersBefore(folder, tag);
    try {
      await migrateUnderLock(handle, before);
    } finally {
      rmSync(before, { recursive: true, force: true });
    }
    for (const { name, statement } of statements) {
      const [invalid] = await queryRows<Record<string, unknown>>(
        handle.db,
        sql`select 1 as one from pg_index i join pg_class c on c.oid = i.indexrelid where c.relname = ${name} and not i.indisvalid`,
      );
      if (invalid) await handle.db.execute(sql.raw(`DROP INDEX CONCURRENTLY IF EXISTS "${name}"`));
      await handle.db.execute(sql.raw(statement));
    }
    builds.push({ tag, path: "concurrently", indexes: statements.map((s) => s.name) });
  }
  await migrateUnderLock(handle, folder);
  return builds;
}
