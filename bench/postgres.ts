import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../lib/db/client";

/**
 * A PostgreSQL server for the scale bench: `DATABASE_URL` when set (migrated here, then used as it is), or a
 * server of its own started the way `.ci/run` starts one: Debian's package (`/usr/lib/postgresql/<n>/bin`),
 * initdb into a temporary directory, loopback only on a random port, fsync off, run as `postgres` when the
 * bench runs as root. `stop()` stops it and deletes the directory; `database(name)` creates and migrates one
 * database per bench part (with `DATABASE_URL` every part shares that one database).
 */
export type BenchPostgres = {
  label: string;
  database(name: string): Promise<string>;
  stop(): void;
  /** CPU time the server's processes have used so far (the postmaster, its live backends and what its ended children used); null with DATABASE_URL. */
  cpuMs(): number | null;
};

/** utime + stime (+ the children's that ended, with `children`) of one process, in ms (CLK_TCK 100); null when gone. */
function statCpuMs(pid: string, children: boolean): { ms: number; parent: string } | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    const ticks = Number(fields[11]) + Number(fields[12]) + (children ? Number(fields[13]) + Number(fields[14]) : 0);
    return { ms: ticks * 10, parent: fields[1] ?? "" };
  } catch {
    return null;
  }
}

/** The CPU of a postmaster (its pid the first line of `postmaster.pid`) and every process it started. */
function serverCpuMs(data: string): number | null {
  const postmaster = readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]?.trim() ?? "";
  const own = statCpuMs(postmaster, true);
  if (!own) return null;
  let total = own.ms;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    const child = statCpuMs(pid, false);
    if (child?.parent === postmaster) total += child.ms;
  }
  return total;
}

function postgresBin(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(a) - Number(b)) : [];
  const bin = versions.map((v) => join(root, v, "bin")).findLast((dir) => existsSync(join(dir, "initdb")));
  if (!bin) throw new Error("No PostgreSQL server found: `apt-get install postgresql` (as .ci/run does) or set DATABASE_URL.");
  return bin;
}

async function migrated(url: string): Promise<string> {
  const handle = await openDatabase({ url, migrate: true });
  await handle.close();
  return url;
}

export async function benchPostgres(): Promise<BenchPostgres> {
  const given = process.env.DATABASE_URL;
  if (given) {
    await migrated(given);
    return { label: `DATABASE_URL (${new URL(given).host})`, database: async () => given, stop: () => undefined, cpuMs: () => null };
  }
  const bin = postgresBin();
  const root = process.getuid?.() === 0;
  const asPostgres = (command: string, args: string[]) =>
    execFileSync(root ? "runuser" : join(bin, command), root ? ["-u", "postgres", "--", join(bin, command), ...args] : args, { stdio: "pipe" });
  const dir = mkdtempSync(join(tmpdir(), "bench-pg-"));
  if (root) chownSync(dir, Number(execFileSync("id", ["-u", "postgres"]).toString().trim()), -1);
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const data = join(dir, "data");
  asPostgres("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8"]);
  const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c max_connections=200 -c fsync=off`;
  asPostgres("pg_ctl", ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "-t", "120", "start"]);
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    try {
      asPostgres("pg_ctl", ["-D", data, "-m", "fast", "-w", "-t", "120", "stop"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  // Interrupted (Ctrl-C, a time limit): the server is not left running.
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      stop();
      process.exit(130);
    });
  }
  const version = execFileSync(join(bin, "postgres"), ["--version"]).toString().trim();
  return {
    label: `${version}, started by the bench (127.0.0.1:${port}, fsync off)`,
    async database(name) {
      execFileSync(join(bin, "createdb"), ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", name]);
      return migrated(`postgres://postgres@127.0.0.1:${port}/${name}`);
    },
    stop,
    cpuMs: () => (stopped ? null : serverCpuMs(data)),
  };
}
