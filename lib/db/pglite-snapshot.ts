import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/*
 * The embedded PGlite's starting point. A new PGlite runs initdb in WebAssembly and then every migration:
 * 8–14 s and close to 1 GB of memory on a small machine. A data directory dumped right after that
 * (`dumpDataDir`, an uncompressed tar) loads in under a second with half the memory, so every new data
 * directory (the first `npm start`, each test harness) starts from it. The snapshot is keyed by the
 * migrations journal and the PGlite version: a new migration or a PGlite upgrade makes a new one, never a
 * stale start. It is made by `npm install` (postinstall), by the test run's global setup, or else by the first
 * start that needs it, and kept under node_modules/.cache (or where `PGLITE_SNAPSHOT` says).
 */

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const migrationsFolder = join(repoRoot, "drizzle");

function snapshotKey(): string {
  const hash = createHash("sha256");
  hash.update(readFileSync(join(migrationsFolder, "meta", "_journal.json")));
  hash.update(readFileSync(join(repoRoot, "node_modules", "@electric-sql", "pglite", "package.json")));
  return hash.digest("hex").slice(0, 16);
}

/** Where the snapshot for the current migrations and PGlite version lives. */
function snapshotPath(env: Record<string, string | undefined> = process.env): string {
  if (env.PGLITE_SNAPSHOT) return env.PGLITE_SNAPSHOT;
  return join(repoRoot, "node_modules", ".cache", "pglite-snapshot", `migrated-${snapshotKey()}.tar`);
}

let loaded: Blob | null = null;

/**
 * What a PGlite opened on `dataDir` (none: in memory) starts from: an existing data directory is reopened
 * (`fresh: false`); a new one loads the snapshot's tar when there is one (already migrated), else runs initdb.
 */
export function pgliteStartingPoint(dataDir: string | undefined): { fresh: boolean; tar?: Blob } {
  if (dataDir && existsSync(join(dataDir, "PG_VERSION"))) return { fresh: false };
  if (loaded) return { fresh: true, tar: loaded };
  const path = snapshotPath();
  if (!existsSync(path)) return { fresh: true };
  loaded = new Blob([readFileSync(path)]);
  return { fresh: true, tar: loaded };
}

/** Writes the snapshot from a freshly migrated PGlite (nothing else written yet); a no-op when it exists. */
export async function saveSnapshot(client: { dumpDataDir(compression?: "none"): Promise<Blob> }): Promise<string> {
  const path = snapshotPath();
  if (existsSync(path)) return path;
  mkdirSync(dirname(path), { recursive: true });
  const tar = Buffer.from(await (await client.dumpDataDir("none")).arrayBuffer());
  const partial = `${path}.${process.pid}.partial`;
  writeFileSync(partial, tar);
  // Atomic: a concurrent reader sees the whole file or none. Snapshots of older keys are removed.
  renameSync(partial, path);
  if (!process.env.PGLITE_SNAPSHOT) {
    for (const name of readdirSync(dirname(path))) {
      if (name !== `${path.split("/").at(-1)}` && name.startsWith("migrated-") && !name.endsWith(".partial"))
        rmSync(join(dirname(path), name), { force: true });
    }
  }
  return path;
}

/** Makes the snapshot if it is missing (postinstall, test global setup). */
export async function prepareSnapshot(): Promise<{ path: string; made: boolean }> {
  const path = snapshotPath();
  if (existsSync(path)) return { path, made: false };
  const { PGlite } = await import("@electric-sql/pglite");
  const { drizzle } = await import("drizzle-orm/pglite");
  const { migrate } = await import("drizzle-orm/pglite/migrator");
  const client = new PGlite();
  await client.waitReady;
  await migrate(drizzle(client), { migrationsFolder });
  await saveSnapshot(client);
  await client.close();
  return { path, made: true };
}
