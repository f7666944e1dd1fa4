import { execFileSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test, vi } from "vitest";
import { randomToken } from "../../lib/core/secrets";
import { demoSendJob, freePort, serviceApi, startProcess, startSimulatorsProcess, valueAfter, type StartedProcess } from "../helpers/processes";
import type { SimulatorStats } from "../../lib/mail/provider/simulator/simulator";
import type { Mail } from "../helpers/harness";

/*
 * `npm start` as an operator runs it: real processes, a signal to the npm process (what a process manager
 * or `kill <pid>` sends). Afterwards npm has exited, no process of the tree is left, the port is free, and
 * the PGlite data under DATA_DIR opens again. A send job with provider calls in flight at the signal still
 * reaches every recipient exactly once after the restart.
 */

const started: ChildProcess[] = [];
const dataDirs: string[] = [];
afterAll(() => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

function tempDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "process-life-"));
  dataDirs.push(dir);
  return dir;
}

/** Resolves when `port` can be bound on loopback, i.e. nothing listens there any more. */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });
}

/** Every process below `pid` (sh, node, tsx's esbuild service), read before the signal. */
function descendants(pid: number): number[] {
  let children: number[] = [];
  try {
    children = execFileSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" })
      .split("\n")
      .map((line) => Number(line.trim()))
      .filter((n) => n > 0);
  } catch {
    // `ps` exits 1 when there is no child.
  }
  return children.flatMap((child) => [child, ...descendants(child)]);
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Ready at the start-up banner's export lines (printed on every start, after the demo keys). */
const startServer = (env: Record<string, string>) =>
  startProcess(started, "npm", ["start"], { LOG_LEVEL: "info", HOST: "127.0.0.1", ...env }, /^\s+export DEMO=/);

/** Sends `signal` to the npm process and checks that the whole tree is gone and the port free. */
async function stopWith(server: StartedProcess, signal: NodeJS.Signals, port: number): Promise<void> {
  const npmPid = server.child.pid;
  if (npmPid === undefined) throw new Error("npm has no pid");
  const tree = descendants(npmPid);
  expect(tree.length, "npm start runs the server below npm").toBeGreaterThan(0);
  const exited = new Promise<number | null>((resolve) => server.child.once("exit", (code) => resolve(code)));
  server.child.kill(signal);
  const within = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), 20_000).unref());
  const code = await Promise.race([exited, within]);
  expect(code, `npm did not exit within 20 s of ${signal}:\n${server.output()}`).not.toBe("timeout");
  expect(code, server.output()).toBe(0);
  expect(server.output()).toMatch(new RegExp(`"message":"stopped","signal":"${signal}"`));
  // The server exits before npm does; its esbuild service follows as soon as its stdin closes.
  await vi.waitFor(() => expect(tree.filter(isAlive), `processes left after ${signal}`).toEqual([]), { timeout: 30_000, interval: 100 });
  expect(await portIsFree(port)).toBe(true);
}

describe("npm start stops on a signal to npm", () => {
  const dataDir = tempDataDir();

  test("SIGTERM, then a start on the same data and SIGINT: the tree exits, the port is freed, the data opens again", async () => {
    const port = await freePort();
    const env = { DATABASE_URL: "", DATA_DIR: dataDir, PORT: String(port) };

    const first = await startServer(env);
    const health = await fetch(`http://127.0.0.1:${port}/mail/v1/health`);
    expect(health.status, "any answer proves the server listens; health needs a key").toBe(401);
    const demoKey = valueAfter(first.lines, "mail full:");
    expect(demoKey).toMatch(/^mk_live_/);
    await stopWith(first, "SIGTERM", port);

    // The second start finds the demo customer and its key in the database the first one closed.
    const second = await startServer(env);
    const banner = second.lines.join("\n");
    expect(banner).toMatch(/Demo customer: [0-9a-f-]{36}\n/);
    expect(banner).toMatch(/keys were printed on its first start; issue new ones with: npm run admin -- keys:create [0-9a-f-]{36}/);
    expect(banner).toContain(`export DEMO=${valueAfter(first.lines, "Demo customer:")}`);
    expect(banner).not.toMatch(/export MAIL=mk_live_/);
    const authorized = await fetch(`http://127.0.0.1:${port}/mail/v1/health`, { headers: { authorization: `Bearer ${demoKey}` } });
    expect(authorized.status, await authorized.clone().text()).toBe(200);
    await stopWith(second, "SIGINT", port);
  }, 120_000);
});

/** How long the Postmark simulator holds each of the calls in flight at the signal (within the drain bound). */
const HOLD_MS = 3000;

test("SIGTERM with a send job's provider calls in flight, then restart: every recipient received exactly once", async () => {
  // The provider runs in its own process so that its record of what it received outlives the service.
  const { urls, sim } = await startSimulatorsProcess(started);

  const port = await freePort();
  const adminToken = randomToken(32);
  const env = {
    DATABASE_URL: "",
    DATA_DIR: tempDataDir(),
    PORT: String(port),
    POSTMARK_API_URL: urls.postmark,
    GRAPH_API_URL: urls.graph,
    ADMIN_TOKEN: adminToken,
    SEND_RECONCILE_TEST_GRACE_MS: String(2 * HOLD_MS),
  };
  let server = await startServer(env);
  const base = `http://127.0.0.1:${port}`;
  const key = valueAfter(server.lines, "mail full:");
  const api = serviceApi(() => base, key);
  // Five batches: three in flight at the signal, two whose queue messages the stop cancels.
  const total = 2500;
  const jobId = await demoSendJob(api, sim, adminToken, { name: "Process life", total });

  const heldBefore = (await sim<SimulatorStats>("/__sim/stats")).faults_held_total;
  await sim("/__sim/faults", { mode: "slow", count: 3, delay_ms: HOLD_MS });
  const start = await api("POST", `/mail/v1/send-jobs/${jobId}/start`);
  expect(start.status, JSON.stringify(start.json)).toBe(200);
  // The signal comes once the three calls are held by the provider (their bodies received), however busy the machine.
  await vi.waitFor(async () => expect((await sim<SimulatorStats>("/__sim/stats")).faults_held_total).toBeGreaterThanOrEqual(heldBefore + 3), {
    timeout: 60_000,
    interval: 25,
  });
  await stopWith(server, "SIGTERM", port);
  const receivedAtStop = (await sim<SimulatorStats>("/__sim/stats")).received;
  expect(receivedAtStop, "the stop let the calls in flight finish").toBeGreaterThan(0);
  expect(receivedAtStop).toBeLessThan(total);

  server = await startServer(env);
  const done = await vi.waitFor(
    async () => {
      const r = await api<Mail["getSendJob"]>("GET", `/mail/v1/send-jobs/${jobId}`);
      expect(r.json.data.status, JSON.stringify(r.json)).toBe("completed");
      return r.json.data;
    },
    { timeout: 40_000, interval: 250 },
  );
  expect(done.recipients).toMatchObject({ total, accepted: total, unknown: 0, failed: 0, pending: 0 });
  const stats = await sim<SimulatorStats>("/__sim/stats");
  expect(stats.duplicates_by_metadata_message_id).toEqual({});
  expect(stats.received).toBe(total);
  await stopWith(server, "SIGTERM", port);
}, 120_000);
