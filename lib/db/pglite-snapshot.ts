import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { PGlite } from "@electric-sql/pglite";

/*
 * The embedded PGlite's starting point. A new PGlite runs initdb in WebAssembly and then every migration:
 * 8–14 s and close to 1 GB of memory on a small machine. A data directory dumped right after that
 * (`dumpDataDir`, an uncompressed tar) loads in under a second with half the memory, so every new data
 * directory (the first `npm start`, each test harness) starts from it. The snapshot is keyed by the
 * migrations journal and the PGlite version: a new migration or a PGlite upgrade makes a new one, never a
 * stale start. It is made by `npm install` (postinstall), by the test run's global setup, or else by the first
 * start that needs it, and kept under node_modules/.cache (or where `PGLITE_SNAPSHOT` says).
 * Beside the tar the same data directory is kept extracted (closed cleanly by PGlite after loading the tar):
 * a new data directory on disk (`npm start`) is a copy of it, opened like an existing one, which spares
 * unpacking 40 MB into memory first (a third less start-up CPU and 60 MB less memory than the tar).
 * In-memory databases (tests) load the tar.
 * What a test file or a first start loads is kept small, because each one copies all of it into memory or onto
 * disk: initdb runs with 1 MB WAL segments instead of 16 MB (the tar held one 16 MB segment,
 * mostly empty), and the template databases (`template0`, `template1`, 7 MB each) are dropped once migrated:
 * PGlite serves the one database `postgres` and nothing here creates databases. 42 → 16 MB; a PGlite's start
 * from it 0.85 → 0.58 s of CPU and 60 MB less memory. `SNAPSHOT_FORMAT` is part of the key, so a change to
 * how the snapshot is made makes a new one.
 */

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const migrationsFolder = join(repoRoot, "drizzle");

/** How the snapshot is made (below): a new value makes a new snapshot. */
const SNAPSHOT_FORMAT = "wal-1MB,no-templates";

/** initdb's options for every new embedded database: 1 MB WAL segments (the size is fixed at initdb). */
export const PGLITE_INITDB_PARAMS = ["--wal-segsize=1"];

function snapshotKey(): string {
  const hash = createHash("sha256");
  hash.update(SNAPSHOT_FORMAT);
  hash.update(readFileSync(join(migrationsFolder, "meta", "_journal.json")));
  hash.update(readFileSync(join(repoRoot, "node_modules", "@electric-sql", "pglite", "package.json")));
  return hash.digest("hex").slice(0, 16);
}

/** Where the snapshot for the current migrations and PGlite version lives. */
function snapshotPath(env: Record<string, string | undefined> = process.env): string {
  if (env.PGLITE_SNAPSHOT) return env.PGLITE_SNAPSHOT;
  return join(repoRoot, "node_modules", ".cache", "pglite-snapshot", `migrated-${snapshotKey()}.tar`);
}

/** The snapshot's data directory, extracted (`prepareSnapshot` makes it from the tar). */
function snapshotDirectory(tarPath: string): string {
  return `${tarPath.replace(/\.tar$/, "")}.datadir`;
}

let loaded: Blob | null = null;

/**
 * What a PGlite opened on `dataDir` (none: in memory) starts from: an existing data directory is reopened
 * (`fresh: false`); a new one is a copy of the extracted snapshot when there is one (then reopened too), else
 * loads the snapshot's tar (already migrated), else runs initdb.
 */
export function pgliteStartingPoint(dataDir: string | undefined): { fresh: boolean; tar?: Blob } {
  if (dataDir && existsSync(join(dataDir, "PG_VERSION"))) return { fresh: false };
  if (dataDir && copySnapshotDirectory(dataDir)) return { fresh: false };
  if (loaded) return { fresh: true, tar: loaded };
  const path = snapshotPath();
  if (!existsSync(path)) return { fresh: true };
  loaded = new Blob([readFileSync(path)]);
  return { fresh: true, tar: loaded };
}

/**
 * Copies the extracted snapshot to `dataDir` (which has no database yet); false when there is none. The copy is
 * made beside it and renamed into place, so a start interrupted meanwhile leaves no half data directory.
 */
function copySnapshotDirectory(dataDir: string): boolean {
  const source = snapshotDirectory(snapshotPath());
  if (!existsSync(join(source, "PG_VERSION"))) return false;
  const partial = `${dataDir}.${process.pid}.partial`;
  rmSync(partial, { recursive: true, force: true });
  cpSync(source, partial, { recursive: true });
  rmSync(dataDir, { recursive: true, force: true });
  renameSync(partial, dataDir);
  return true;
}

/** Writes the snapshot from a freshly migrated PGlite (nothing else written yet); a no-op when it exists. */
async function saveSnapshot(client: PGlite): Promise<string> {
  const path = snapshotPath();
  if (existsSync(path)) return path;
  mkdirSync(dirname(path), { recursive: true });
  // The templates are only copied by CREATE DATABASE, which nothing here runs; the checkpoint leaves the WAL
  // the dump carries at its shortest.
  await client.exec("update pg_database set datistemplate = false where datname in ('template0', 'template1')");
  await client.exec("drop database template0");
  await client.exec("drop database template1");
  await client.exec("checkpoint");
  const tar = Buffer.from(await (await client.dumpDataDir("none")).arrayBuffer());
  const partial = `${path}.${process.pid}.partial`;
  writeFileSync(partial, tar);
  // Atomic: a concurrent reader sees the whole file or none. Snapshots of older keys are removed.
  renameSync(partial, path);
  removeOlderSnapshots(path);
  return path;
}

/** Snapshots (tars and extracted directories) of older keys are removed. */
function removeOlderSnapshots(path: string): void {
  if (process.env.PGLITE_SNAPSHOT) return;
  const current = [path, snapshotDirectory(path)].map((file) => file.split("/").at(-1));
  for (const name of readdirSync(dirname(path))) {
    if (!current.includes(name) && name.startsWith("migrated-") && !name.endsWith(".partial"))
      rmSync(join(dirname(path), name), { recursive: true, force: true });
  }
}

/** Extracts the tar at `path` into its snapshot directory: PGlite loads it and closes cleanly. */
async function extractSnapshot(path: string): Promise<void> {
  const directory = snapshotDirectory(path);
  if (existsSync(join(directory, "PG_VERSION"))) return;
  const { PGlite } = await import("@electric-sql/pglite");
  const partial = `${directory}.${process.pid}.partial`;
  rmSync(partial, { recursive: true, force: true });
  const client = new PGlite(partial, { loadDataDir: new Blob([readFileSync(path)]) });
  await client.waitReady;
  await client.close();
  try {
    renameSync(partial, directory);
  } catch (error) {
    // A concurrent preparation renamed its copy first: the same bytes.
    rmSync(partial, { recursive: true, force: true });
    if (!existsSync(join(directory, "PG_VERSION"))) throw error;
  }
  removeOlderSnapshots(path);
}

/** Makes the snapshot (tar and extracted directory) where missing (postinstall, test global setup). */
export async function prepareSnapshot(): Promise<{ path: string; made: boolean }> {
  const path = snapshotPath();
  if (existsSync(path)) {
    const extracted = !existsSync(join(snapshotDirectory(path), "PG_VERSION"));
    await extractSnapshot(path);
    return { path, made: extracted };
  }
  const { PGlite } = await import("@electric-sql/pglite");
  const { drizzle } = await import("drizzle-orm/pglite");
  const { migrate } = await import("drizzle-orm/pglite/migrator");
  const client = new PGlite({ initDbStartParams: PGLITE_INITDB_PARAMS });
  await client.waitReady;
  await migrate(drizzle(client), { migrationsFolder });
  await saveSnapshot(client);
  await client.close();
  await extractSnapshot(path);
  return { path, made: true };
}
