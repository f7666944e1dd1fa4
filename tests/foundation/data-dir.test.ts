import { execFile, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test, vi } from "vitest";
import { freePort, repoRoot, serviceApi, startProcess, valueAfter, type StartedProcess } from "../helpers/processes";
import type { Ads, ErrorEnvelope } from "../helpers/harness";

/*
 * One process per data directory, with real processes: a server holds the directory (a second one is
 * refused), the admin CLI finds it through the directory whatever its port, and after a SIGKILL the
 * next start takes the stale lock over and finds the embedded Graph simulator's objects again (an old ad
 * set still works, new ids do not collide); an object the platform lost answers 409 naming it, logged.
 */

const started: ChildProcess[] = [];
const dataDir = mkdtempSync(join(tmpdir(), "data-dir-"));
afterAll(() => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

const env = (port: number) => ({ DATABASE_URL: "", DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "info" });
const startServer = (port: number) => startProcess(started, process.execPath, ["lib/start.mjs"], env(port), /^\s+export DEMO=/);

function cli(args: string[], extraEnv: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", "lib/commands/admin.ts", ...args],
      { cwd: repoRoot, env: { ...process.env, ...extraEnv }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

async function exited(server: StartedProcess): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  await new Promise((resolve) => server.child.once("exit", resolve));
}

test("a data directory has one process; the CLI finds the server; state and ids survive a SIGKILL", async () => {
  const port = await freePort();
  const first = await startServer(port);
  const base = `http://127.0.0.1:${port}`;
  const adsKey = valueAfter(first.lines, "ads full:");
  const demo = valueAfter(first.lines, "Demo customer:");
  expect(adsKey).toMatch(/^ak_live_/);
  let currentBase = base;
  const api = serviceApi(() => currentBase, adsKey);
  const created = await api<Ads["createAdSet"]>("POST", "/ads/v1/adsets", { target: "demo", daily_budget_cents: 2500 });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  const adSet = created.json.data as { id: string; platform_adset_id: string };

  // A second server on the same directory is refused with a message naming the holder.
  const otherPort = await freePort();
  const refused = await startServer(otherPort).then(
    () => "started",
    (error: unknown) => String(error),
  );
  expect(refused).toContain("is in use by another process");
  expect(refused).toContain(`the server at ${base}`);

  // The CLI finds the server through the directory, not through PORT (set to a port nobody listens on).
  const listed = await cli(["customers:list"], { DATA_DIR: dataDir, PORT: String(otherPort), DATABASE_URL: "" });
  expect(listed.code, listed.stderr).toBe(0);
  expect(listed.stdout).toContain('"name": "Demo"');
  const issued = await cli(["keys:create", demo, "ads", "full"], { DATA_DIR: dataDir, PORT: String(otherPort), DATABASE_URL: "" });
  expect(issued.code, issued.stderr).toBe(0);
  const newKey = /"key": "(ak_live_[A-Za-z0-9]+)"/.exec(issued.stdout)?.[1] ?? "";
  expect((await api("GET", "/ads/v1/health", undefined, newKey)).status, "the key the CLI printed works at once").toBe(200);

  // The first owner from the CLI (the banner says how); the shared token is retired then, the CLI keeps working
  // (it sends the server's own CLI token from server.json) and its writes are audited as `cli`.
  expect(first.output()).toContain("npm run admin -- operators:create --email you@example.com --role owner");
  const owner = await cli(["operators:create", "--email", "owner@operators.example", "--role", "owner"], { DATA_DIR: dataDir, DATABASE_URL: "" });
  expect(owner.code, owner.stderr).toBe(0);
  expect(owner.stdout).toContain('"role": "owner"');
  expect(owner.stdout).toMatch(/Password \(shown this once[^:]*\): \S{20,}/);
  const sharedToken = readFileSync(join(dataDir, "admin-token"), "utf8").trim();
  const retired = await fetch(`${base}/admin/v1/customers`, { headers: { authorization: `Bearer ${sharedToken}` } });
  expect(retired.status).toBe(401);
  expect(await retired.text()).toContain("retired when the first owner account was created");
  const audited = await cli(["customers:list"], { DATA_DIR: dataDir, DATABASE_URL: "" });
  expect(audited.code, audited.stderr).toBe(0);

  // SIGKILL: the lock and the server file stay behind with a dead pid; the simulator saved its state (it writes
  // graph-simulator.json a moment after a change: the kill waits until the file holds the ad set).
  const graphState = join(dataDir, "graph-simulator.json");
  await vi.waitFor(() => expect(existsSync(graphState) && readFileSync(graphState, "utf8").includes(`"${adSet.platform_adset_id}"`)).toBe(true), {
    timeout: 30_000,
    interval: 50,
  });
  first.child.kill("SIGKILL");
  await exited(first);
  expect(existsSync(join(dataDir, "lock"))).toBe(true);
  const down = await cli(["customers:list"], { DATA_DIR: dataDir, PORT: String(port), DATABASE_URL: "" });
  expect(down.code, `${down.stdout}${down.stderr}`).toBe(0);

  const secondPort = await freePort();
  const second = await startServer(secondPort);
  currentBase = `http://127.0.0.1:${secondPort}`;
  const updated = await api("PATCH", `/ads/v1/adsets/${adSet.id}`, { daily_budget_cents: 3000 });
  expect(updated.status, `the old ad set still works: ${JSON.stringify(updated.json)}`).toBe(200);
  const another = await api<Ads["createAdSet"]>("POST", "/ads/v1/adsets", { target: "demo", daily_budget_cents: 2500 });
  expect(another.status, JSON.stringify(another.json)).toBe(201);
  expect(BigInt(another.json.data.platform_adset_id)).toBeGreaterThan(BigInt(adSet.platform_adset_id));
  expect((await api("GET", "/ads/v1/health", undefined, newKey)).status, "the CLI's key survived the restart").toBe(200);

  // The platform loses the object (its state reset): a clear 409 naming our ad set, and a log line.
  const graphSim = valueAfter(second.lines, "export GRAPH_SIM=");
  expect((await fetch(`${graphSim}/__sim/reset`, { method: "POST" })).status).toBe(200);
  const gone = await api<ErrorEnvelope>("PATCH", `/ads/v1/adsets/${adSet.id}`, { daily_budget_cents: 3500 });
  expect(gone.status, JSON.stringify(gone.json)).toBe(409);
  expect(gone.json.error).toMatchObject({ code: "conflict", details: { reason: "upstream_object_missing", object: "ad_set", id: adSet.id } });
  expect(gone.json.error.message).toContain(adSet.id);
  await vi.waitFor(() => expect(second.output()).toContain("no longer exists upstream"), { timeout: 30_000 });

  second.child.kill("SIGTERM");
  await exited(second);
  expect(existsSync(join(dataDir, "lock")), "a clean stop releases the directory").toBe(false);
  expect(existsSync(join(dataDir, "server.json"))).toBe(false);
}, 240_000);
