import { closeSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { join, resolve } from "node:path";
import { ConfigError } from "./core/config";

/**
 * One process per data directory. PGlite, the embedded simulators' state and the local files are not made
 * to be shared: a second process on the same directory would read a stale copy and write over the first.
 * Whoever boots a runtime on a data directory holds `DATA_DIR/lock` (its pid); a second process is refused
 * with a message naming the holder, and a lock whose pid is gone (a crash, a SIGKILL) is taken over.
 * The server also writes `DATA_DIR/server.json` (its URL and pid) once it listens, so the admin CLI finds
 * it there whatever port it runs on.
 */

const LOCK_FILE = "lock";
const SERVER_FILE = "server.json";

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readPid(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, "utf8").trim(), 10);
    return Number.isFinite(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** The running server of a data directory (from `server.json`), when its process is alive. */
export function runningServer(dataDir: string): { url: string; pid: number; cliToken: string | null } | undefined {
  try {
    const saved = JSON.parse(readFileSync(join(dataDir, SERVER_FILE), "utf8")) as { url?: unknown; pid?: unknown; cli_token?: unknown };
    if (typeof saved.url !== "string" || typeof saved.pid !== "number" || !alive(saved.pid)) return undefined;
    return { url: saved.url, pid: saved.pid, cliToken: typeof saved.cli_token === "string" ? saved.cli_token : null };
  } catch {
    return undefined;
  }
}

function inUse(dataDir: string, pid: number): ConfigError {
  const server = runningServer(dataDir);
  return new ConfigError(
    `The data directory ${resolve(dataDir)} is in use by another process (pid ${pid}${server ? `, the server at ${server.url}` : ""}). ` +
      "Only one process may open it: stop that process first, or start this one with another DATA_DIR. " +
      "The admin CLI (npm run admin -- …) talks to a running server by itself.",
  );
}

/** Takes the data directory for this process; throws a `ConfigError` naming the holder when it is taken. */
export function lockDataDir(dataDir: string): { release(): void } {
  const path = join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, "wx", 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        if (readPid(path) === process.pid) rmSync(path, { force: true });
      };
      process.once("exit", release);
      return { release };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const pid = readPid(path);
      if (pid !== undefined && pid !== process.pid && alive(pid)) throw inUse(dataDir, pid);
      // A stale lock (its process is gone) or an unreadable one: take it over.
      rmSync(path, { force: true });
    }
  }
  throw new ConfigError(`The data directory ${resolve(dataDir)} could not be locked (${path}); remove the file if no process uses the directory.`);
}

/** `cliToken`: the admin CLI's credential for this start (the file is the owner's only, mode 0600). */
export function writeServerFile(dataDir: string, url: string, cliToken?: string): void {
  const saved = { url, pid: process.pid, started_at: new Date().toISOString(), ...(cliToken ? { cli_token: cliToken } : {}) };
  writeFileSync(join(dataDir, SERVER_FILE), `${JSON.stringify(saved)}\n`, { mode: 0o600 });
}

export function removeServerFile(dataDir: string): void {
  const server = runningServer(dataDir);
  if (!server || server.pid === process.pid) rmSync(join(dataDir, SERVER_FILE), { force: true });
}
