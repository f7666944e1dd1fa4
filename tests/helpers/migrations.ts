import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrationsFolder } from "../../lib/db/client";

/**
 * A copy of `drizzle/` in a temporary folder with the journal ending at migration `last`: migrating with it
 * gives the schema as it was then. The caller removes the folder.
 */
export function migrationsUpTo(last: number): string {
  const copy = mkdtempSync(join(tmpdir(), "migrations-"));
  cpSync(migrationsFolder, copy, { recursive: true });
  const file = join(copy, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(file, "utf8")) as { entries: { idx: number }[] };
  journal.entries = journal.entries.filter((e) => e.idx <= last);
  writeFileSync(file, JSON.stringify(journal));
  return copy;
}
