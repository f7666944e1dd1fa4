import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The benches' temporary folders, removed by one `exit` listener (one listener each passed Node's limit of 10). */
const dirs: string[] = [];

/**
 * A temporary DATA_DIR for a bench's runtime, removed when the process exits (a 100k send leaves 0.7–2 GB of
 * PGlite data; left behind run after run, they filled the disk once).
 */
export function benchDataDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (dirs.length === 0) {
    process.once("exit", () => {
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    });
  }
  dirs.push(dir);
  return dir;
}
