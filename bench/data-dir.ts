import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A temporary DATA_DIR for a bench's runtime, removed when the process exits (a 100k send leaves 0.7–2 GB of
 * PGlite data; left behind run after run, they filled the disk once).
 */
export function benchDataDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
